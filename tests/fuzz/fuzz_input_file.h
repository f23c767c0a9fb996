// The fuzz targets' input as a file: the readers under test take a path, so each input is written
// to an in-memory file (memfd) and passed as /proc/self/fd/<n>. One file serves every input; no disk.
//
// Both fuzz targets treat an ember::Error as the reader's correct answer to bad bytes. Anything
// else (another exception, a crash, a sanitizer report, a hang) is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/mman.h>

namespace ember::fuzz {

// Replaces the file's contents with `data` and returns its path.
inline std::string input_file(const uint8_t* data, size_t size) {
  static const int fd = memfd_create("ember-fuzz-input", MFD_CLOEXEC);
  if (fd < 0) {
    std::perror("memfd_create");
    std::abort();
  }
  size_t done = 0;
  if (ftruncate(fd, 0) != 0) std::abort();
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace ember::fuzz
