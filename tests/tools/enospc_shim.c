/* An LD_PRELOAD shim for the full-disk test of ember-charlm: write, pwrite, writev, fsync,
 * fdatasync, sendfile and copy_file_range fail with ENOSPC on every file whose path contains
 * $EMBER_ENOSPC_MATCH (for example ".tmp." or "best.safetensors"); all other calls go through.
 * It is a disk that is full for some files only, with no mount and no root. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int full_for(int fd) {
  const char* want = getenv("EMBER_ENOSPC_MATCH");
  if (want == NULL || *want == '\0') return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  return strstr(path, want) != NULL;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))
#define FAIL_IF_FULL(fd) \
  if (full_for(fd)) {    \
    errno = ENOSPC;      \
    return -1;           \
  }

ssize_t write(int fd, const void* buf, size_t n) {
  FAIL_IF_FULL(fd);
  return REAL(write)(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  FAIL_IF_FULL(fd);
  return REAL(pwrite)(fd, buf, n, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t offset) {
  FAIL_IF_FULL(fd);
  return REAL(pwrite64)(fd, buf, n, offset);
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
  FAIL_IF_FULL(fd);
  return REAL(writev)(fd, iov, count);
}

int fsync(int fd) {
  FAIL_IF_FULL(fd);
  return REAL(fsync)(fd);
}

int fdatasync(int fd) {
  FAIL_IF_FULL(fd);
  return REAL(fdatasync)(fd);
}

ssize_t sendfile(int out_fd, int in_fd, off_t* offset, size_t n) {
  FAIL_IF_FULL(out_fd);
  return REAL(sendfile)(out_fd, in_fd, offset, n);
}

ssize_t sendfile64(int out_fd, int in_fd, off64_t* offset, size_t n) {
  FAIL_IF_FULL(out_fd);
  return REAL(sendfile64)(out_fd, in_fd, offset, n);
}

ssize_t copy_file_range(int in_fd, off64_t* in_off, int out_fd, off64_t* out_off, size_t n, unsigned flags) {
  FAIL_IF_FULL(out_fd);
  return REAL(copy_file_range)(in_fd, in_off, out_fd, out_off, n, flags);
}
