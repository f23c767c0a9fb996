// Stored zip archives (nn/pickle_zip.h): the writer, the reader, CRC-32.
#include "nn/pickle_zip.h"

#include <array>
#include <cstring>

#include "core/error.h"

namespace ember {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
constexpr size_t kLocalSize = 30, kCentralSize = 46, kEndSize = 22, kZip64EndSize = 56, kZip64LocatorSize = 20;
constexpr uint64_t kZip32Max = 0xFFFFFFFF;
constexpr uint16_t kZip64ExtraId = 0x0001, kPaddingExtraId = 0x4246;  // "FB": PyTorch's alignment padding
constexpr uint64_t kDataAlignment = 64;

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

}  // namespace

uint32_t crc32(const char* data, size_t size) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) c = kCrcTable[(c ^ static_cast<uint8_t>(data[i])) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

void ZipWriter::add(const std::string& name, const char* data, size_t size) {
  Entry e{name, crc32(data, size), size, out_.size()};
  const bool zip64 = size >= kZip32Max || e.offset >= kZip32Max;
  std::vector<char> extra;
  if (zip64) {
    put_le(extra, kZip64ExtraId, 2);
    put_le(extra, 16, 2);
    put_le(extra, size, 8);
    put_le(extra, size, 8);
  }
  const uint64_t unpadded = e.offset + kLocalSize + name.size() + extra.size() + 4;
  const uint64_t padding = (kDataAlignment - unpadded % kDataAlignment) % kDataAlignment;
  put_le(extra, kPaddingExtraId, 2);
  put_le(extra, padding, 2);
  extra.insert(extra.end(), padding, 'Z');

  put_le(out_, kLocalSig, 4);
  put_le(out_, zip64 ? 45 : 20, 2);  // version needed
  put_le(out_, 0, 2);                // flags
  put_le(out_, 0, 2);                // method: stored
  put_le(out_, 0, 4);                // time, date
  put_le(out_, e.crc, 4);
  put_le(out_, zip64 ? kZip32Max : size, 4);
  put_le(out_, zip64 ? kZip32Max : size, 4);
  put_le(out_, name.size(), 2);
  put_le(out_, extra.size(), 2);
  out_.insert(out_.end(), name.begin(), name.end());
  out_.insert(out_.end(), extra.begin(), extra.end());
  out_.insert(out_.end(), data, data + size);
  entries_.push_back(std::move(e));
}

std::vector<char> ZipWriter::finish() {
  const uint64_t directory_offset = out_.size();
  for (const Entry& e : entries_) {
    const bool zip64 = e.size >= kZip32Max || e.offset >= kZip32Max;
    put_le(out_, kCentralSig, 4);
    put_le(out_, zip64 ? 45 : 20, 2);  // version made by
    put_le(out_, zip64 ? 45 : 20, 2);  // version needed
    put_le(out_, 0, 2);
    put_le(out_, 0, 2);
    put_le(out_, 0, 4);
    put_le(out_, e.crc, 4);
    put_le(out_, zip64 ? kZip32Max : e.size, 4);
    put_le(out_, zip64 ? kZip32Max : e.size, 4);
    put_le(out_, e.name.size(), 2);
    put_le(out_, zip64 ? 28 : 0, 2);  // extra
    put_le(out_, 0, 2);               // comment
    put_le(out_, 0, 2);               // disk
    put_le(out_, 0, 2);               // internal attributes
    put_le(out_, 0, 4);               // external attributes
    put_le(out_, zip64 ? kZip32Max : e.offset, 4);
    out_.insert(out_.end(), e.name.begin(), e.name.end());
    if (zip64) {
      put_le(out_, kZip64ExtraId, 2);
      put_le(out_, 24, 2);
      put_le(out_, e.size, 8);
      put_le(out_, e.size, 8);
      put_le(out_, e.offset, 8);
    }
  }
  const uint64_t directory_size = out_.size() - directory_offset;
  const uint64_t count = entries_.size();
  const bool zip64 = count >= 0xFFFF || directory_offset >= kZip32Max || directory_size >= kZip32Max;
  if (zip64) {
    const uint64_t end64_offset = out_.size();
    put_le(out_, kZip64EndSig, 4);
    put_le(out_, kZip64EndSize - 12, 8);
    put_le(out_, 45, 2);
    put_le(out_, 45, 2);
    put_le(out_, 0, 4);
    put_le(out_, 0, 4);
    put_le(out_, count, 8);
    put_le(out_, count, 8);
    put_le(out_, directory_size, 8);
    put_le(out_, directory_offset, 8);
    put_le(out_, kZip64LocatorSig, 4);
    put_le(out_, 0, 4);
    put_le(out_, end64_offset, 8);
    put_le(out_, 1, 4);
  }
  put_le(out_, kEndSig, 4);
  put_le(out_, 0, 4);  // disk numbers
  put_le(out_, zip64 ? 0xFFFF : count, 2);
  put_le(out_, zip64 ? 0xFFFF : count, 2);
  put_le(out_, zip64 ? kZip32Max : directory_size, 4);
  put_le(out_, zip64 ? kZip32Max : directory_offset, 4);
  put_le(out_, 0, 2);  // comment
  return std::move(out_);
}

ZipReader::ZipReader(const char* data, size_t size) : data_(data) {
  EMBER_CHECK(size >= kEndSize, "pickle_load: not a zip archive ({} bytes, too short for one)", size);
  // The end record is the last 22 bytes unless a comment (at most 65535 bytes) follows it.
  size_t end = size - kEndSize;
  const size_t lowest = size - kEndSize > 0xFFFF ? size - kEndSize - 0xFFFF : 0;
  while (!(get_le(data + end, 4) == kEndSig && end + kEndSize + get_le(data + end + 20, 2) == size)) {
    EMBER_CHECK(end > lowest, "pickle_load: not a zip archive (no end of central directory record)");
    --end;
  }
  uint64_t count = get_le(data + end + 10, 2);
  uint64_t directory_size = get_le(data + end + 12, 4);
  uint64_t directory_offset = get_le(data + end + 16, 4);
  uint64_t directory_limit = end;  // the directory ends before the end record(s)
  if (end >= kZip64LocatorSize && get_le(data + end - kZip64LocatorSize, 4) == kZip64LocatorSig) {
    const uint64_t end64 = get_le(data + end - kZip64LocatorSize + 8, 8);
    EMBER_CHECK(end64 <= end - kZip64LocatorSize && end - kZip64LocatorSize - end64 >= kZip64EndSize &&
                    get_le(data + end64, 4) == kZip64EndSig,
                "pickle_load: corrupt zip archive (bad zip64 end record offset {})", end64);
    count = get_le(data + end64 + 32, 8);
    directory_size = get_le(data + end64 + 40, 8);
    directory_offset = get_le(data + end64 + 48, 8);
    directory_limit = end64;
  }
  EMBER_CHECK(directory_offset <= directory_limit && directory_size <= directory_limit - directory_offset,
              "pickle_load: corrupt zip archive (central directory at {} of {} bytes runs past {})", directory_offset,
              directory_size, directory_limit);
  EMBER_CHECK(count <= directory_size / kCentralSize, "pickle_load: corrupt zip archive ({} entries in {} bytes)",
              count, directory_size);
  data_limit_ = directory_offset;
  const char* p = data + directory_offset;
  const char* directory_end = p + directory_size;
  for (uint64_t i = 0; i < count; ++i) p = read_central_entry(p, directory_end);
}

const char* ZipReader::read_central_entry(const char* p, const char* directory_end) {
  EMBER_CHECK(directory_end - p >= static_cast<ptrdiff_t>(kCentralSize) && get_le(p, 4) == kCentralSig,
              "pickle_load: corrupt zip archive (bad central directory entry)");
  const uint64_t flags = get_le(p + 8, 2), method = get_le(p + 10, 2), crc = get_le(p + 16, 4);
  uint64_t compressed = get_le(p + 20, 4), size = get_le(p + 24, 4), offset = get_le(p + 42, 4);
  const size_t name_size = get_le(p + 28, 2), extra_size = get_le(p + 30, 2), comment_size = get_le(p + 32, 2);
  EMBER_CHECK(static_cast<uint64_t>(directory_end - p) >= kCentralSize + name_size + extra_size + comment_size,
              "pickle_load: corrupt zip archive (central directory entry runs past the directory)");
  std::string name(p + kCentralSize, name_size);
  // A zip64 extra field holds, in this order, whichever of the three was 0xFFFFFFFF.
  const char* extra = p + kCentralSize + name_size;
  for (size_t at = 0; at + 4 <= extra_size;) {
    const uint64_t id = get_le(extra + at, 2), length = get_le(extra + at + 2, 2);
    EMBER_CHECK(at + 4 + length <= extra_size, "pickle_load: corrupt zip archive (extra field of '{}')", name);
    if (id == kZip64ExtraId) {
      const char* field = extra + at + 4;
      size_t used = 0;
      for (uint64_t* value : {&size, &compressed, &offset}) {
        if (*value != kZip32Max) continue;
        EMBER_CHECK(used + 8 <= length, "pickle_load: corrupt zip archive (short zip64 field of '{}')", name);
        *value = get_le(field + used, 8);
        used += 8;
      }
    }
    at += 4 + length;
  }
  EMBER_CHECK((flags & 1) == 0, "pickle_load: entry '{}' is encrypted", name);
  EMBER_CHECK(method == 0 && compressed == size,
              "pickle_load: entry '{}' is compressed (method {}); torch.save archives are stored", name, method);
  EMBER_CHECK(offset <= data_limit_ && data_limit_ - offset >= kLocalSize && get_le(data_ + offset, 4) == kLocalSig,
              "pickle_load: corrupt zip archive (bad local header offset {} of '{}')", offset, name);
  const char* local = data_ + offset;
  const uint64_t data_start = offset + kLocalSize + get_le(local + 26, 2) + get_le(local + 28, 2);
  EMBER_CHECK(get_le(local + 26, 2) == name_size && data_start <= data_limit_ &&
                  std::memcmp(local + kLocalSize, name.data(), name_size) == 0,
              "pickle_load: corrupt zip archive (local header of '{}' does not match the directory)", name);
  EMBER_CHECK(size <= data_limit_ - data_start,
              "pickle_load: corrupt zip archive (entry '{}' of {} bytes at {} runs past the data)", name, size,
              data_start);
  std::string_view bytes(data_ + data_start, size);
  EMBER_CHECK(crc32(bytes.data(), bytes.size()) == crc, "pickle_load: entry '{}' fails its CRC-32 check", name);
  EMBER_CHECK(entries_.emplace(name, bytes).second, "pickle_load: the archive holds '{}' twice", name);
  return p + kCentralSize + name_size + extra_size + comment_size;
}

}  // namespace ember
