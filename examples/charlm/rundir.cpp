// One run per directory and cleanup of interrupted saves (see rundir.h).
#include "rundir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>

#include <ember/ember.h>
#include <sys/file.h>
#include <sys/stat.h>

namespace charlm {

namespace fs = std::filesystem;

const char* program_name() { return program_invocation_short_name; }  // glibc's, set before main

RunDirLock::RunDirLock(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  EMBER_CHECK(!ec, "train: cannot create --out_dir {}: {}", dir.string(), ec.message());
  const fs::path path = dir / ".lock";
  fd_ = open_run_file(path, O_RDWR | O_CREAT, "train: the lock file").release();
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char pid[32] = {};
    const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
    ::close(fd_);
    fd_ = -1;
    EMBER_CHECK(err == EWOULDBLOCK, "train: cannot lock {}: {}", path.string(), std::strerror(err));
    EMBER_FAIL("train: another {} (pid {}) is training in {}; wait for it to finish or pick another --out_dir",
               program_name(), n > 0 ? std::string(pid, std::strcspn(pid, "\n")) : std::string("unknown"),
               dir.string());
  }
  // The holder's pid, for the message above; the lock itself is the flock, released when we exit.
  // Writing it is best effort: a full disk must not stop a run that holds the lock.
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, me.data(), me.size(), 0);
}

RunDirLock::~RunDirLock() {
  if (fd_ >= 0) ::close(fd_);
}

RunFile::~RunFile() {
  if (fd_ >= 0) ::close(fd_);
}

RunFile open_run_file(const fs::path& path, int flags, const std::string& what) {
  // O_NONBLOCK: a FIFO planted there must not block the open; it is refused just below.
  RunFile file(::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644));
  if (file.fd() < 0 && errno == ELOOP)
    EMBER_FAIL(
        "{} {} is a symbolic link; {} writes its run files only as regular files in --out_dir, never through a link "
        "(remove the link, or pick another --out_dir)",
        what, path.string(), program_name());
  EMBER_CHECK(file.fd() >= 0, "{} {} cannot be opened: {}", what, path.string(), std::strerror(errno));
  struct stat st {};
  EMBER_CHECK(::fstat(file.fd(), &st) == 0 && S_ISREG(st.st_mode),
              "{} {} is not a regular file (a FIFO, device, socket or directory); remove it or pick another --out_dir",
              what, path.string());
  ::fcntl(file.fd(), F_SETFL, ::fcntl(file.fd(), F_GETFL) & ~O_NONBLOCK);
  return file;
}

void write_run_file(const RunFile& file, const std::string& text, const fs::path& path, const std::string& what) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(file.fd(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    EMBER_CHECK(n > 0, "{}: cannot write {}: {}", what, path.string(), std::strerror(n < 0 ? errno : EIO));
    done += static_cast<size_t>(n);
  }
}

std::string read_run_file(const RunFile& file, const fs::path& path, const std::string& what) {
  std::string text;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.fd(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    EMBER_CHECK(n >= 0, "{}: cannot read {}: {}", what, path.string(), std::strerror(errno));
    if (n == 0) return text;
    text.append(buf, static_cast<size_t>(n));
  }
}

int remove_stale_temporaries(const fs::path& dir) {
  static const std::regex kTemporary(R"(.+\.safetensors\.tmp\.[0-9]+\.[0-9]+)");
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, kTemporary) && fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

}  // namespace charlm
