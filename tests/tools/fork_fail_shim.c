/* An LD_PRELOAD shim for the launcher test of a failed start: the $EMBER_FORK_FAIL_AT-th call of
 * fork() in the process fails with EAGAIN (as when a user reaches their process limit); the others
 * go through. It removes itself from the environment at load, so the programs that process starts
 * run without it. Root ignores RLIMIT_NPROC, so a limit could not make fork fail in a test. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static long fail_at = 0;
static long calls = 0;

__attribute__((constructor)) static void read_settings(void) {
  const char* at = getenv("EMBER_FORK_FAIL_AT");
  fail_at = at != NULL ? strtol(at, NULL, 10) : 0;
  unsetenv("EMBER_FORK_FAIL_AT");
  unsetenv("LD_PRELOAD");
}

pid_t fork(void) {
  if (++calls == fail_at) {
    errno = EAGAIN;
    return -1;
  }
  return ((pid_t(*)(void))dlsym(RTLD_NEXT, "fork"))();
}
