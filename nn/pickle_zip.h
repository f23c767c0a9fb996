// Stored (uncompressed) zip archives as PyTorch's torch.save writes them, for nn/pickle.cpp.
//
//   ember::ZipWriter zip;
//   zip.add("archive/data.pkl", bytes.data(), bytes.size());
//   std::vector<char> archive = zip.finish();
//   ember::ZipReader reader(archive.data(), archive.size());   // checks everything, or throws
//   std::string_view pkl = reader.entries().at("archive/data.pkl");
//
// Written here rather than taken from a library: PyTorch's archives are never compressed, their data
// must be 64-byte aligned (an "FB" padding extra field, as PyTorch's miniz writer does), and the
// reader must check every offset and size against the buffer itself. zip64 records are written when
// a size, offset or count needs them and read when present. Not a general zip tool: no compression,
// no encryption, no multi-disk archives. Errors name pickle_load, their one reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ember {

// Little-endian integers of `bytes` bytes, as zip and pickle store them.
inline void put_le(std::vector<char>& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}
inline uint64_t get_le(const char* p, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return value;
}

uint32_t crc32(const char* data, size_t size);

// Writes entries one after another, then the central directory. Sizes are known up front (no data
// descriptors), the method is "stored", times are zero.
class ZipWriter {
 public:
  void add(const std::string& name, const char* data, size_t size);
  std::vector<char> finish();

 private:
  struct Entry {
    std::string name;
    uint32_t crc;
    uint64_t size;
    uint64_t offset;
  };
  std::vector<char> out_;
  std::vector<Entry> entries_;
};

// Reads the central directory and checks every entry: inside the buffer, stored, not encrypted,
// local header consistent with the directory, CRC-32 right, no name twice. Entries are views into
// the caller's buffer, which must outlive the reader.
class ZipReader {
 public:
  ZipReader(const char* data, size_t size);
  const std::map<std::string, std::string_view>& entries() const { return entries_; }

 private:
  const char* read_central_entry(const char* p, const char* directory_end);

  const char* data_;
  uint64_t data_limit_ = 0;  // where the central directory begins: entries' data ends before it
  std::map<std::string, std::string_view> entries_;
};

}  // namespace ember
