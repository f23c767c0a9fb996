// One run per directory and cleanup of interrupted saves (see rundir.h).
#include "rundir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>
#include <string>

#include <ember/ember.h>
#include <sys/file.h>

namespace charlm {

namespace fs = std::filesystem;

RunDirLock::RunDirLock(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  EMBER_CHECK(!ec, "train: cannot create --out_dir {}: {}", dir.string(), ec.message());
  const fs::path path = dir / ".lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  EMBER_CHECK(fd_ >= 0, "train: cannot open the lock file {}: {}", path.string(), std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char pid[32] = {};
    const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
    ::close(fd_);
    fd_ = -1;
    EMBER_CHECK(err == EWOULDBLOCK, "train: cannot lock {}: {}", path.string(), std::strerror(err));
    EMBER_FAIL(
        "train: another ember-charlm (pid {}) is training in {}; wait for it to finish or pick another "
        "--out_dir",
        n > 0 ? std::string(pid, std::strcspn(pid, "\n")) : std::string("unknown"), dir.string());
  }
  // The holder's pid, for the message above; the lock itself is the flock, released when we exit.
  // Writing it is best effort: a full disk must not stop a run that holds the lock.
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, me.data(), me.size(), 0);
}

RunDirLock::~RunDirLock() {
  if (fd_ >= 0) ::close(fd_);
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
