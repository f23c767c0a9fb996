// The training run's directory, kept safe from its neighbours: one run at a time (an flock on
// out_dir/.lock holding the owner's pid) and no leftovers of runs killed while saving.
//
//   RunDirLock lock(out_dir);                  // throws "... pid 1234 is training in out_dir"
//   remove_stale_temporaries(out_dir);         // the *.safetensors.tmp.<pid>.<n> of killed saves
//
// Not a guard for readers: `sample` reads checkpoints without the lock (they are replaced by rename).
#pragma once

#include <filesystem>

namespace charlm {

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

}  // namespace charlm
