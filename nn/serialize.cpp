// safetensors reading and writing, and module state dicts on top of them (nn/serialize.h).
//
// Writing: the header is built with nlohmann::ordered_json (compact, "__metadata__" first, tensors
// in the caller's order, as the reference writer lays them out) and padded with spaces to a
// multiple of 8 bytes. Bytes go to "<path>.tmp.<pid>.<n>" next to the target, which is fsync'ed
// and renamed over the target, so readers see the old file or the new one, never a mix. A symlink
// is written through (the file it names is replaced, keeping its mode); anything but a regular file
// or a new name is refused.
// Reading: every header field is checked before any data is read, and the tensors' byte ranges
// must tile the data section exactly (no overlap, no gap, no trailing bytes), as the reference
// reader requires. Hostile headers are errors, not crashes: nesting is bounded before parsing,
// names must be UTF-8, and messages quote only a short excerpt of any value (nn/json_guard.h).
#include "nn/serialize.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <istream>
#include <iterator>
#include <optional>
#include <ostream>
#include <set>

#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include "autograd/grad_mode.h"
#include "nn/json_guard.h"

namespace ember {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; Ember reads and writes it as host memory");

namespace {

using ordered_json = nlohmann::ordered_json;

constexpr uint64_t kMaxHeaderBytes = 100'000'000;  // the reference reader's limit
constexpr const char* kMetadataKey = "__metadata__";

std::string errno_text() { return std::strerror(errno); }

// ---- dtypes ----

std::optional<ScalarType> dtype_from_safetensors(const std::string& name) {
  if (name == "F32") return kFloat32;
  if (name == "F64") return kFloat64;
  if (name == "I64") return kInt64;
  if (name == "BOOL") return kBool;
  if (name == "BF16") return kBFloat16;
  if (name == "F16") return kFloat16;
  if (name == "U8") return kUInt8;
  if (name == "I8") return kInt8;
  if (name == "I16") return kInt16;
  if (name == "I32") return kInt32;
  return std::nullopt;
}

bool is_known_unsupported_dtype(const std::string& name) {
  static const std::set<std::string> names = {"F8_E4M3", "F8_E5M2", "U16", "U32", "U64", "C64"};
  return names.count(name) > 0;
}

// ---- POSIX file helpers that throw ember::Error ----

class File {
 public:
  File(int fd) : fd_(fd) {}  // NOLINT
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now, reporting the error a delayed write may surface only here.
  bool close() {
    int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

void write_all(int fd, const void* data, size_t n, const std::string& tmp) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    EMBER_CHECK(w > 0, "save_safetensors: writing {} failed: {}", tmp, errno_text());
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// Reads exactly n bytes at `offset`; false if the file ends first.
bool read_all(int fd, void* data, size_t n, uint64_t offset) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return true;
}

// Creates a new file next to `path` that no one else has open; returns its name and descriptor.
std::pair<std::string, int> create_temp_beside(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return {tmp, fd};
    EMBER_CHECK(errno == EEXIST, "save_safetensors: cannot create a temporary file beside {}: {}", path, errno_text());
  }
  EMBER_FAIL("save_safetensors: cannot create a temporary file beside {} (100 names taken)", path);
}

constexpr int kMaxSymlinkHops = 40;  // as Linux's limit on links followed in one path lookup

// Where saving to `path` writes: symlinks are followed to the file they name (which may not exist
// yet), so the link stays a link; the result is a regular file or absent, never a FIFO, device,
// socket or directory, which renaming over would replace. `existing` is that file's stat, if any.
std::string resolve_save_target(const std::string& path, std::optional<struct stat>& existing) {
  std::filesystem::path target(path);
  for (int hop = 0;; ++hop) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) {
      EMBER_CHECK(errno == ENOENT, "save_safetensors: cannot write {}: {}", path, errno_text());
      existing.reset();
      return target.string();
    }
    if (!S_ISLNK(st.st_mode)) {
      EMBER_CHECK(S_ISREG(st.st_mode),
                  "save_safetensors: {}{} is not a regular file (a directory, FIFO, device or socket); refusing to "
                  "replace it",
                  path, target.string() == path ? std::string() : " -> " + target.string());
      existing = st;
      return target.string();
    }
    EMBER_CHECK(hop < kMaxSymlinkHops, "save_safetensors: cannot write {}: more than {} levels of symbolic links", path,
                kMaxSymlinkHops);
    std::error_code ec;
    const std::filesystem::path next = std::filesystem::read_symlink(target, ec);
    EMBER_CHECK(!ec, "save_safetensors: cannot read the symbolic link {}: {}", target.string(), ec.message());
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
}

// The directory entry of a rename is durable only once the directory itself is synced.
void sync_directory_of(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the file is complete either way; only durability across a crash is at stake
  ::fsync(fd);
  ::close(fd);
}

// JSON strings must be UTF-8; a name that is not would only fail deep inside the JSON writer.
void check_utf8(const std::string& text, const char* what) {
  const size_t at = first_invalid_utf8(text);
  EMBER_CHECK(at == std::string::npos, "save_safetensors: the {} '{}' is not valid UTF-8 (byte {} of it, 0x{:02x})",
              what, excerpt(text), at, static_cast<unsigned char>(at == std::string::npos ? 0 : text[at]));
}

std::string header_bytes(const NamedTensors& tensors, const std::map<std::string, std::string>& metadata) {
  for (const auto& [k, v] : metadata) {
    check_utf8(k, "metadata key");
    check_utf8(v, "metadata value");
  }
  for (const auto& [name, t] : tensors) check_utf8(name, "tensor name");
  ordered_json header = ordered_json::object();
  if (!metadata.empty()) {
    ordered_json meta = ordered_json::object();
    for (const auto& [k, v] : metadata) meta[k] = v;
    header[kMetadataKey] = meta;
  }
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    ordered_json info = ordered_json::object();
    info["dtype"] = safetensors_dtype(t.dtype());
    info["shape"] = t.sizes().vec();
    info["data_offsets"] = {offset, offset + t.nbytes()};
    header[name] = info;
    offset += t.nbytes();
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {  // not expected after the checks above
    EMBER_FAIL("save_safetensors: cannot write the header: {}", excerpt(e.what(), 200));
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

}  // namespace

std::string safetensors_dtype(ScalarType dtype) {
  switch (dtype) {
    case kFloat32:
      return "F32";
    case kFloat64:
      return "F64";
    case kInt64:
      return "I64";
    case kBool:
      return "BOOL";
    case kBFloat16:
      return "BF16";
    case kFloat16:
      return "F16";
    case kUInt8:
      return "U8";
    case kInt8:
      return "I8";
    case kInt16:
      return "I16";
    case kInt32:
      return "I32";
  }
  EMBER_FAIL("safetensors: unsupported dtype {}", dtype_name(dtype));
}

// ---- SafetensorsFile ----

bool SafetensorsFile::contains(const std::string& name) const {
  return std::any_of(tensors.begin(), tensors.end(), [&](const auto& nt) { return nt.first == name; });
}

const Tensor& SafetensorsFile::at(const std::string& name) const {
  for (const auto& [n, t] : tensors)
    if (n == name) return t;
  EMBER_FAIL("safetensors: {} has no tensor '{}' ({} tensors in the file)", path, excerpt(name), tensors.size());
}

NamedTensors SafetensorsFile::with_prefix(const std::string& prefix) const {
  NamedTensors out;
  for (const auto& [n, t] : tensors)
    if (n.compare(0, prefix.size(), prefix) == 0) out.emplace_back(n.substr(prefix.size()), t);
  return out;
}

// ---- writing ----

namespace {
void check_savable(const NamedTensors& tensors) {
  std::set<std::string> seen;
  for (const auto& [name, t] : tensors) {
    EMBER_CHECK(name != kMetadataKey, "save_safetensors: '{}' is reserved for the metadata and cannot name a tensor",
                name);
    EMBER_CHECK(seen.insert(name).second, "save_safetensors: the tensor name '{}' appears twice", excerpt(name));
    EMBER_CHECK(t.defined(), "save_safetensors: tensor '{}' is undefined", excerpt(name));
  }
}
}  // namespace

void save_safetensors(std::ostream& stream, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata) {
  check_savable(tensors);
  const std::string header = header_bytes(tensors, metadata);
  const uint64_t header_len = header.size();
  stream.write(reinterpret_cast<const char*>(&header_len), sizeof(header_len));
  stream.write(header.data(), static_cast<std::streamsize>(header.size()));
  for (const auto& [name, t] : tensors) {
    Tensor host = t.detach().to(Device(kCPU)).contiguous();
    if (host.nbytes() > 0)
      stream.write(static_cast<const char*>(host.raw_data_ptr()), static_cast<std::streamsize>(host.nbytes()));
  }
  EMBER_CHECK(stream.good(), "save_safetensors: writing to the stream failed");
}

void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata) {
  // Everything that can be checked is checked before the temporary file exists.
  check_savable(tensors);
  const std::string header = header_bytes(tensors, metadata);
  const uint64_t header_len = header.size();

  std::optional<struct stat> existing;
  const std::string target = resolve_save_target(path, existing);
  auto [tmp, fd_raw] = create_temp_beside(target);
  File fd(fd_raw);
  try {
    if (existing)  // the new file keeps the old one's permissions
      EMBER_CHECK(::fchmod(fd.get(), existing->st_mode & 07777) == 0, "save_safetensors: setting the mode of {} "
                  "failed: {}", tmp, errno_text());
    write_all(fd.get(), &header_len, sizeof(header_len), tmp);
    write_all(fd.get(), header.data(), header.size(), tmp);
    for (const auto& [name, t] : tensors) {
      Tensor host = t.detach().to(Device(kCPU)).contiguous();
      if (host.nbytes() > 0) write_all(fd.get(), host.raw_data_ptr(), host.nbytes(), tmp);
    }
    EMBER_CHECK(::fsync(fd.get()) == 0, "save_safetensors: flushing {} to disk failed: {}", tmp, errno_text());
    EMBER_CHECK(fd.close(), "save_safetensors: closing {} failed: {}", tmp, errno_text());
    EMBER_CHECK(::rename(tmp.c_str(), target.c_str()) == 0, "save_safetensors: renaming {} to {} failed: {}", tmp,
                target, errno_text());
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  sync_directory_of(target);
}

// ---- reading ----

namespace {

struct Entry {
  std::string name;
  ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

uint64_t to_offset(const ordered_json& v, const std::string& where) {
  EMBER_CHECK(v.is_number_unsigned(), "{}: data_offsets must hold non-negative integers, got {}", where,
              json_excerpt(v));
  return v.get<uint64_t>();
}

Entry parse_entry(const std::string& name, const ordered_json& info, const std::string& where) {
  EMBER_CHECK(info.is_object(), "{}: expected an object with dtype, shape and data_offsets, got {}", where,
              json_excerpt(info));
  for (const char* field : {"dtype", "shape", "data_offsets"})
    EMBER_CHECK(info.contains(field), "{}: the field \"{}\" is missing", where, field);
  const ordered_json& dt = info["dtype"];
  EMBER_CHECK(dt.is_string(), "{}: dtype must be a string, got {}", where, json_excerpt(dt));
  const std::string dts = dt.get<std::string>();
  std::optional<ScalarType> dtype = dtype_from_safetensors(dts);
  EMBER_CHECK(dtype || !is_known_unsupported_dtype(dts),
              "{}: dtype {} is not supported by Ember (it reads F32, F64, F16, BF16, I64, I32, I16, I8, U8 and BOOL)", where, dts);
  EMBER_CHECK(dtype.has_value(), "{}: unknown dtype '{}' (expected F32, F64, F16, BF16, I64, I32, I16, I8, U8 or BOOL)", where, excerpt(dts));

  const ordered_json& sh = info["shape"];
  EMBER_CHECK(sh.is_array(), "{}: shape must be a list of sizes, got {}", where, json_excerpt(sh));
  Entry e{name, *dtype, {}, 0, 0};
  uint64_t numel = 1;
  for (const auto& s : sh) {
    EMBER_CHECK(s.is_number_unsigned(), "{}: shape {} must hold non-negative integers", where, json_excerpt(sh));
    const uint64_t size = s.get<uint64_t>();
    EMBER_CHECK(size <= static_cast<uint64_t>(INT64_MAX) && !__builtin_mul_overflow(numel, size, &numel),
                "{}: shape {} has too many elements", where, json_excerpt(sh));
    e.shape.push_back(static_cast<int64_t>(size));
  }
  const ordered_json& off = info["data_offsets"];
  EMBER_CHECK(off.is_array() && off.size() == 2, "{}: data_offsets must be [begin, end], got {}", where,
              json_excerpt(off));
  e.begin = to_offset(off[0], where);
  e.end = to_offset(off[1], where);
  EMBER_CHECK(e.begin <= e.end, "{}: data_offsets [{}, {}] end before they begin", where, e.begin, e.end);
  uint64_t nbytes = 0;
  EMBER_CHECK(!__builtin_mul_overflow(numel, element_size(e.dtype), &nbytes), "{}: shape {} has too many bytes", where,
              json_excerpt(sh));
  EMBER_CHECK(e.end - e.begin == nbytes, "{}: data_offsets [{}, {}] span {} bytes, but shape {} of {} needs {}", where,
              e.begin, e.end, e.end - e.begin, e.shape, dts, nbytes);
  return e;
}

}  // namespace

namespace {

// Where the bytes come from: a file (read where needed) or a stream's bytes (read at once).
struct ByteSource {
  uint64_t size = 0;
  std::function<bool(void*, size_t, uint64_t)> read;  // (destination, bytes, offset) -> complete
};

SafetensorsFile parse_safetensors(const ByteSource& source, const std::string& path);

}  // namespace

SafetensorsFile load_safetensors(const std::string& path) {
  const std::string op = "load_safetensors: " + path;
  File fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  EMBER_CHECK(fd.get() >= 0, "{}: cannot open: {}", op, errno_text());
  struct stat st {};
  EMBER_CHECK(::fstat(fd.get(), &st) == 0, "{}: cannot stat: {}", op, errno_text());
  ByteSource source{static_cast<uint64_t>(st.st_size),
                    [&](void* data, size_t n, uint64_t offset) { return read_all(fd.get(), data, n, offset); }};
  return parse_safetensors(source, path);
}

// A stream holds one safetensors file from its current position to its end (libtorch's torch::load
// reads a whole stream as one archive too).
SafetensorsFile load_safetensors(std::istream& stream) {
  std::string bytes{std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
  ByteSource source{bytes.size(), [&](void* data, size_t n, uint64_t offset) {
                      if (offset > bytes.size() || n > bytes.size() - offset) return false;
                      if (n > 0) std::memcpy(data, bytes.data() + offset, n);
                      return true;
                    }};
  return parse_safetensors(source, "<stream>");
}

namespace {

SafetensorsFile parse_safetensors(const ByteSource& source, const std::string& path) {
  const std::string op = "load_safetensors: " + path;
  const uint64_t file_size = source.size;

  uint64_t header_len = 0;
  EMBER_CHECK(file_size >= 8 && source.read(&header_len, 8, 0),
              "{}: file is truncated: {} bytes, too short for the 8-byte header length", op, file_size);
  EMBER_CHECK(header_len <= file_size - 8,
              "{}: header length {} goes past the end of the file ({} bytes; truncated or not a safetensors file)", op,
              header_len, file_size);
  EMBER_CHECK(header_len <= kMaxHeaderBytes, "{}: header length {} is over the {}-byte limit", op, header_len,
              kMaxHeaderBytes);
  std::string text(header_len, '\0');
  EMBER_CHECK(source.read(text.data(), header_len, 8), "{}: cannot read the header: {}", op, errno_text());

  check_json_depth(text, op + ": the header");

  // Duplicate names would silently shadow each other in a JSON object, so the parser reports them.
  std::string duplicate;
  std::set<std::string> top_keys;
  auto on_event = [&](int depth, ordered_json::parse_event_t event, ordered_json& parsed) {
    if (event == ordered_json::parse_event_t::key && depth == 1 && !top_keys.insert(parsed.get<std::string>()).second)
      duplicate = parsed.get<std::string>();
    return true;
  };
  ordered_json header;
  try {
    header = ordered_json::parse(text, on_event);
  } catch (const nlohmann::json::exception& e) {
    EMBER_FAIL("{}: the header is not valid JSON ({})", op, excerpt(e.what(), 200));
  }
  EMBER_CHECK(header.is_object(), "{}: the header must be a JSON object, got {}", op, header.type_name());
  EMBER_CHECK(duplicate.empty(), "{}: the header names '{}' twice", op, excerpt(duplicate));

  SafetensorsFile file;
  file.path = path;
  std::vector<Entry> entries;
  try {  // every field is type-checked first; this turns anything missed into an ember::Error too
    for (const auto& [name, info] : header.items()) {
      if (name == kMetadataKey) {
        EMBER_CHECK(info.is_object(), "{}: __metadata__ must map strings to strings, got {}", op, json_excerpt(info));
        for (const auto& [k, v] : info.items()) {
          EMBER_CHECK(v.is_string(), "{}: __metadata__ value of '{}' must be a string, got {}", op, excerpt(k),
                      json_excerpt(v));
          file.metadata[k] = v.get<std::string>();
        }
        continue;
      }
      entries.push_back(parse_entry(name, info, fmt::format("{}: tensor '{}'", op, excerpt(name))));
    }
  } catch (const nlohmann::json::exception& e) {
    EMBER_FAIL("{}: the header does not have the safetensors layout ({})", op, excerpt(e.what(), 200));
  }

  // The byte ranges must tile [0, data_size) in order: no overlap, no gap, nothing after the end.
  const uint64_t data_start = 8 + header_len, data_size = file_size - data_start;
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  uint64_t expected = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    EMBER_CHECK(e.end <= data_size,
                "{}: tensor '{}': data_offsets [{}, {}] go past the end of the data ({} bytes; the file is truncated)",
                op, excerpt(e.name), e.begin, e.end, data_size);
    EMBER_CHECK(e.begin >= expected, "{}: tensors '{}' and '{}' overlap (bytes [{}, {}) and [{}, {}))", op,
                excerpt(previous ? previous->name : ""), excerpt(e.name), previous ? previous->begin : 0, expected,
                e.begin, e.end);
    EMBER_CHECK(e.begin == expected, "{}: tensor '{}': {} bytes before its data_offsets [{}, {}] belong to no tensor",
                op, excerpt(e.name), e.begin - expected, e.begin, e.end);
    expected = e.end;
    previous = &e;
  }
  EMBER_CHECK(expected == data_size, "{}: {} bytes after the last tensor's data belong to no tensor", op,
              data_size - expected);

  for (const Entry& e : entries) {
    Tensor t = empty(e.shape, dtype(e.dtype));
    const uint64_t nbytes = e.end - e.begin;
    if (nbytes > 0)
      EMBER_CHECK(source.read(t.raw_data_ptr(), nbytes, data_start + e.begin), "{}: tensor '{}': read failed: {}", op,
                  excerpt(e.name), errno_text());
    if (e.dtype == kBool) {  // a C++ bool must hold 0 or 1
      const auto* bytes = static_cast<const unsigned char*>(t.raw_data_ptr());
      for (uint64_t i = 0; i < nbytes; ++i)
        EMBER_CHECK(bytes[i] <= 1, "{}: tensor '{}': BOOL element {} holds the byte {}, not 0 or 1", op,
                    excerpt(e.name), i, bytes[i]);
    }
    file.tensors.emplace_back(e.name, t);
  }
  return file;
}

}  // namespace

}  // namespace ember

// ---- module state ----

namespace ember::nn {

ember::NamedTensors state_dict(const Module& module) {
  ember::NamedTensors out = module.named_parameters().pairs();
  for (const auto& item : module.named_buffers()) out.push_back(item.pair());
  return out;
}

void load_state_dict(Module& module, const ember::NamedTensors& state, bool strict) {
  ember::NamedTensors targets = state_dict(module);
  std::map<std::string, const Tensor*> given;
  std::vector<std::string> problems, duplicates, unexpected, missing;
  for (const auto& [name, t] : state)
    if (!given.emplace(name, &t).second) duplicates.push_back(name);
  std::set<std::string> known;
  for (const auto& [name, target] : targets) {
    known.insert(name);
    auto it = given.find(name);
    if (it == given.end()) {
      missing.push_back(name);
      continue;
    }
    const Tensor& src = *it->second;
    if (!src.defined())
      problems.push_back(fmt::format("tensor '{}' in the checkpoint is undefined", name));
    else if (src.sizes() != target.sizes())
      problems.push_back(
          fmt::format("size mismatch for {}: copying a param with shape {} from checkpoint, the shape "
                      "in current model is {}",
                      name, src.sizes(), target.sizes()));
    else if (src.dtype() != target.dtype())
      problems.push_back(fmt::format("dtype mismatch for {}: the checkpoint holds {}, the current model {}", name,
                                     dtype_name(src.dtype()), dtype_name(target.dtype())));
  }
  for (const auto& [name, t] : state)
    if (!known.count(name)) unexpected.push_back(name);
  auto quoted = [](const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "\"" : ", \"") + n + "\"";
    return s;
  };
  if (!duplicates.empty()) problems.push_back("Duplicate key(s) in state_dict: " + quoted(duplicates) + ".");
  if (strict && !missing.empty()) problems.push_back("Missing key(s) in state_dict: " + quoted(missing) + ".");
  if (strict && !unexpected.empty()) problems.push_back("Unexpected key(s) in state_dict: " + quoted(unexpected) + ".");
  if (!problems.empty()) {
    std::string message = fmt::format("Error(s) in loading state_dict for {}:", module.name());
    for (const auto& p : problems) message += "\n\t" + p;
    EMBER_FAIL("{}", message);
  }

  NoGradGuard no_grad;
  for (auto& [name, target] : targets) {
    auto it = given.find(name);
    if (it != given.end()) target.copy_(*it->second);
  }
}

void save(const Module& module, const std::string& path, const std::map<std::string, std::string>& metadata) {
  save_safetensors(path, state_dict(module), metadata);
}

void save(const Module& module, std::ostream& stream, const std::map<std::string, std::string>& metadata) {
  save_safetensors(stream, state_dict(module), metadata);
}

void load(Module& module, std::istream& stream, bool strict) {
  SafetensorsFile file = load_safetensors(stream);
  try {
    load_state_dict(module, file.tensors, strict);
  } catch (const Error& e) {
    EMBER_FAIL("nn::load: <stream>: {}", e.what());
  }
}

void load(Module& module, const std::string& path, bool strict) {
  SafetensorsFile file = load_safetensors(path);
  try {
    load_state_dict(module, file.tensors, strict);
  } catch (const Error& e) {
    EMBER_FAIL("nn::load: {}: {}", path, e.what());
  }
}

}  // namespace ember::nn
