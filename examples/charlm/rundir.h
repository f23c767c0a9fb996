// The training run's directory, kept safe from its neighbours: one run at a time (an flock on
// out_dir/.lock holding the owner's pid), no leftovers of runs killed while saving, and its files
// (.lock, log.csv, loss.gp) opened only as regular files, never through a symbolic link.
//
//   RunDirLock lock(out_dir);                  // throws "... pid 1234 is training in out_dir"
//   remove_stale_temporaries(out_dir);         // the *.safetensors.tmp.<pid>.<n> of killed saves
//   RunFile log = open_run_file(out_dir / "log.csv", O_WRONLY | O_APPEND | O_CREAT, "train");
//
// Not a guard for readers: `sample` reads checkpoints without the lock (they are replaced by rename).
#pragma once

#include <filesystem>
#include <string>
#include <utility>

namespace charlm {

// The running program's name (the last part of argv[0]: "ember-charlm"), for messages.
const char* program_name();

class RunDirLock {
 public:
  // Creates `dir` if needed and takes the lock, or throws at once naming the pid that holds it.
  explicit RunDirLock(const std::filesystem::path& dir);
  ~RunDirLock();
  RunDirLock(const RunDirLock&) = delete;
  RunDirLock& operator=(const RunDirLock&) = delete;

 private:
  int fd_ = -1;
};

// Deletes the temporary files that a save interrupted by a crash or kill -9 left in `dir`
// (<name>.safetensors.tmp.<pid>.<n>). Call it holding the lock: then no save is in flight.
// Returns how many it removed.
int remove_stale_temporaries(const std::filesystem::path& dir);

// A file descriptor, closed when it goes out of scope.
class RunFile {
 public:
  explicit RunFile(int fd) : fd_(fd) {}
  ~RunFile();
  RunFile(RunFile&& other) noexcept : fd_(other.release()) {}
  RunFile(const RunFile&) = delete;
  RunFile& operator=(const RunFile&) = delete;
  int fd() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// Opens a file of the run with open(2)'s `flags` (plus O_NOFOLLOW and O_CLOEXEC; new files get mode
// 0644). A symbolic link at `path` (which would make the write land in whatever it points to) and
// anything but a regular file (a FIFO, a device) are refused with an error starting with `what`
// that names the path.
RunFile open_run_file(const std::filesystem::path& path, int flags, const std::string& what);
// Writes all of `text` to `file`; throws naming `path` on an error (a full disk).
void write_run_file(const RunFile& file, const std::string& text, const std::filesystem::path& path,
                    const std::string& what);
// The whole file, read through `file`.
std::string read_run_file(const RunFile& file, const std::filesystem::path& path, const std::string& what);

}  // namespace charlm
