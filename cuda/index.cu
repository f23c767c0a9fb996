// CUDA indexing kernels: index_select / index_add (embedding forward and backward) and
// gather / scatter_add (cross-entropy's pick of the target logit and its gradient).
//
// One thread per element moved. scatter_add, and index_add on int64, use atomicAdd, so repeated
// indices add up correctly (exactly, for integers); the order of float additions through atomics
// is not fixed, so scatter_add's results may differ from the CPU in the last bits and between runs
// (PyTorch's CUDA scatter_add behaves the same way). index_add on floating types (embedding's
// backward) is deterministic instead: the host sorts the index positions by index value into
// segments (sort_index below), split into chunks of at most kIndexAddChunk positions; a first pass
// sums each chunk's src rows in position order, a second adds each segment's chunk sums, in chunk
// order, to its row of out. No atomics, the same bits every run. bool has no atomic add and is
// rejected before a launch; the narrow integers add in an int64 copy (widen), as on the CPU, and
// bfloat16 / float16 are refused as the CPU refuses them. index_select and gather move values of
// every dtype.
#include <algorithm>
#include <string>
#include <vector>

#include "cuda/kernels.h"
#include "cuda/launchers.h"

namespace ember::cuda {

namespace {

template <typename T>
__device__ void atomic_add(T* p, T v) {
  if constexpr (std::is_same_v<T, int64_t>) {
    // Two's-complement addition is the same bits signed or unsigned.
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else if constexpr (!std::is_same_v<T, bool>) {
    atomicAdd(p, v);
  }
}

#define EMBER_GRID_STRIDE_LOOP(i, n)                                                     \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    index_select_kernel(Blocks3 b, int64_t n_index, const int64_t* idx, T* out, const T* in) {
  EMBER_GRID_STRIDE_LOOP(e, b.outer * n_index * b.inner) {
    const int64_t j = e % b.inner, i = (e / b.inner) % n_index, o = e / (b.inner * n_index);
    out[e] = in[(o * b.len + idx[i]) * b.inner + j];
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    index_add_kernel(Blocks3 b, int64_t n_index, const int64_t* idx, T* out, const T* src) {
  EMBER_GRID_STRIDE_LOOP(e, b.outer * n_index * b.inner) {
    const int64_t j = e % b.inner, i = (e / b.inner) % n_index, o = e / (b.inner * n_index);
    atomic_add(&out[(o * b.len + idx[i]) * b.inner + j], src[e]);
  }
}

// partial (outer, chunks, inner): chunk c's sum of src rows order[chunk_begin[c] .. chunk_begin[c + 1]).
template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    index_add_chunks_kernel(Blocks3 b, int64_t n_index, int64_t chunks, const int64_t* order,
                            const int64_t* chunk_begin, T* partial, const T* src) {
  EMBER_GRID_STRIDE_LOOP(e, b.outer * chunks * b.inner) {
    const int64_t j = e % b.inner, c = (e / b.inner) % chunks, o = e / (b.inner * chunks);
    T acc = 0;
    for (int64_t p = chunk_begin[c]; p < chunk_begin[c + 1]; ++p) acc += src[(o * n_index + order[p]) * b.inner + j];
    partial[e] = acc;
  }
}

// out row rows[u] += the chunk sums of segment u, chunks seg_begin[u] .. seg_begin[u + 1], in order.
template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    index_add_segments_kernel(Blocks3 b, int64_t chunks, int64_t segments, const int64_t* rows,
                              const int64_t* seg_begin, T* out, const T* partial) {
  EMBER_GRID_STRIDE_LOOP(e, b.outer * segments * b.inner) {
    const int64_t j = e % b.inner, u = (e / b.inner) % segments, o = e / (b.inner * segments);
    T acc = 0;
    for (int64_t c = seg_begin[u]; c < seg_begin[u + 1]; ++c) acc += partial[(o * chunks + c) * b.inner + j];
    out[(o * b.len + rows[u]) * b.inner + j] += acc;
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    gather_kernel(int64_t n, OffsetCalc<1> calc, int64_t dim_stride, const int64_t* idx, T* out, const T* in) {
  EMBER_GRID_STRIDE_LOOP(i, n) { out[i] = in[calc.offsets(i)[0] + idx[i] * dim_stride]; }
}

template <typename T>
__global__ void __launch_bounds__(kBlockSize)
    scatter_add_kernel(int64_t n, OffsetCalc<1> calc, int64_t dim_stride, const int64_t* idx, T* out, const T* src) {
  EMBER_GRID_STRIDE_LOOP(i, n) { atomic_add(&out[calc.offsets(i)[0] + idx[i] * dim_stride], src[i]); }
}

#undef EMBER_GRID_STRIDE_LOOP

}  // namespace

namespace {

// bool has no atomic add.
void check_atomic_dtype(const TensorView& t, const char* op) {
  if (t.dtype == kBool) fail(std::string(op) + ": not implemented for bool tensors on CUDA (no atomic add)");
}

// IndexSegments of n indices in [0, len), made on the host and uploaded as one int64 buffer
// holding order, chunk_begin, rows and seg_begin.
struct SortedIndex {
  DeviceBuffer buffer;
  IndexSegments seg;
};

SortedIndex sort_index(const int64_t* idx, int64_t n, int64_t len, Device device) {
  std::vector<int64_t> order(n);
  if (len <= 2 * n + 1024) {  // a counting sort by value; stable: positions stay in order
    std::vector<int64_t> next(len + 1, 0);
    for (int64_t i = 0; i < n; ++i) ++next[idx[i] + 1];
    for (int64_t v = 0; v < len; ++v) next[v + 1] += next[v];
    for (int64_t i = 0; i < n; ++i) order[next[idx[i]]++] = i;
  } else {  // few indices into a long dim
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return idx[a] < idx[b]; });
  }
  std::vector<int64_t> chunk_begin, rows, seg_begin;
  for (int64_t p = 0; p < n;) {
    const int64_t value = idx[order[p]];
    rows.push_back(value);
    seg_begin.push_back(static_cast<int64_t>(chunk_begin.size()));
    int64_t end = p;
    while (end < n && idx[order[end]] == value) ++end;
    for (; p < end; p += kIndexAddChunk) chunk_begin.push_back(p);
    p = end;
  }
  const int64_t chunks = static_cast<int64_t>(chunk_begin.size()), segments = static_cast<int64_t>(rows.size());
  chunk_begin.push_back(n);
  seg_begin.push_back(chunks);
  std::vector<int64_t> all = order;
  for (const std::vector<int64_t>* part : {&chunk_begin, &rows, &seg_begin})
    all.insert(all.end(), part->begin(), part->end());
  SortedIndex sorted{upload(device, all), {}};
  const int64_t* base = sorted.buffer.as<const int64_t>();
  sorted.seg = {base, base + n, base + n + chunks + 1, base + n + chunks + 1 + segments, chunks, segments};
  return sorted;
}

// A copy of `dim` held at 0 in these strides: the offsets of gather / scatter_add's other dims.
std::vector<int64_t> with_zero_at(IntList strides, int64_t dim) {
  std::vector<int64_t> s = strides.vec();
  s[dim] = 0;
  return s;
}

}  // namespace

// index is int64, contiguous and in range (the op checked); out and in / src contiguous.

void launchers::index_select(const TensorView& out, const TensorView& in, int64_t dim, const TensorView& index) {
  cudaStream_t s = prepare(out.device);
  const Blocks3 blocks = blocks_around(in.sizes.vec(), dim);
  const int64_t n_index = index.numel;
  dispatch_all_types("index_select", in.dtype, [&]<typename T>() {
    const LaunchShape ls = launch_1d(blocks.outer * n_index * blocks.inner);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, index_select_kernel<T>)
    (blocks, n_index, index.ptr<const int64_t>(), out.ptr<T>(), in.ptr<const T>());
    check_launch("index_select");
  });
}

// Floating types: deterministic, the index sorted on the host (one read back of the index, which
// the op read already to check its range); int64 adds exactly in any order, so it keeps the atomics.
void launchers::index_add(const TensorView& out, int64_t dim, const TensorView& index, const TensorView& src) {
  cudaStream_t s = prepare(out.device);
  check_atomic_dtype(out, "index_add");
  if (is_narrow_integer(out.dtype)) {  // accumulated in int64, wrapped once, as the CPU does
    const WideCopy out64 = widen(out);
    index_add(out64.view, dim, index, widen(src).view);
    return narrow_back(out, out64);
  }
  const Blocks3 blocks = blocks_around(out.sizes.vec(), dim);
  const int64_t n = index.numel;
  if (!is_floating_point(out.dtype) || n == 0 || src.numel == 0) {
    dispatch_type("index_add", out.dtype, [&]<typename T>() {
      const LaunchShape ls = launch_1d(blocks.outer * n * blocks.inner);
      if (ls.grid == 0) return;
      EMBER_LAUNCH(ls.grid, ls.block, 0, s, index_add_kernel<T>)
      (blocks, n, index.ptr<const int64_t>(), out.ptr<T>(), src.ptr<const T>());
      check_launch("index_add");
    });
    return;
  }
  require_floating(out.dtype, "index_add");
  std::vector<int64_t> host(n);
  download(host.data(), index.data, n * sizeof(int64_t), index.device);
  const SortedIndex sorted = sort_index(host.data(), n, blocks.len, out.device);
  const IndexSegments& seg = sorted.seg;
  // the chunks' sums: outer * chunks * inner values of out's dtype
  const DeviceBuffer partial(out.device, blocks.outer * seg.chunks * blocks.inner * element_size(out.dtype));
  dispatch_floating_type("index_add", out.dtype, [&]<typename T>() {
    const LaunchShape chunk_ls = launch_1d(blocks.outer * seg.chunks * blocks.inner);
    if (chunk_ls.grid == 0) return;
    EMBER_LAUNCH(chunk_ls.grid, chunk_ls.block, 0, s, index_add_chunks_kernel<T>)
    (blocks, n, seg.chunks, seg.order, seg.chunk_begin, partial.as<T>(), src.ptr<const T>());
    check_launch("index_add");
    const LaunchShape seg_ls = launch_1d(blocks.outer * seg.segments * blocks.inner);
    EMBER_LAUNCH(seg_ls.grid, seg_ls.block, 0, s, index_add_segments_kernel<T>)
    (blocks, seg.chunks, seg.segments, seg.rows, seg.seg_begin, out.ptr<T>(), partial.as<const T>());
    check_launch("index_add");
  });
}

// For each index position, an OffsetCalc over index's shape gives the offset into the strided
// tensor with `dim` held at 0. gather: out[i] = in[off + idx[i] * dim_stride]; scatter_add:
// out[off + idx[i] * dim_stride] += src[i].
void launchers::gather(const TensorView& out, const TensorView& in, int64_t dim, const TensorView& index) {
  cudaStream_t s = prepare(out.device);
  const int64_t n = index.numel;
  const OffsetCalc<1> calc = offset_calc<1>("gather", index.sizes.vec(), {with_zero_at(in.strides, dim)});
  dispatch_all_types("gather", in.dtype, [&]<typename T>() {
    const LaunchShape ls = launch_1d(n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, gather_kernel<T>)
    (n, calc, in.strides[dim], index.ptr<const int64_t>(), out.ptr<T>(), in.ptr<const T>());
    check_launch("gather");
  });
}

void launchers::scatter_add(const TensorView& out, int64_t dim, const TensorView& index, const TensorView& src) {
  cudaStream_t s = prepare(out.device);
  check_atomic_dtype(out, "scatter_add");
  if (is_narrow_integer(out.dtype)) {  // accumulated in int64, wrapped once, as the CPU does
    const WideCopy out64 = widen(out);
    scatter_add(out64.view, dim, index, widen(src).view);
    return narrow_back(out, out64);
  }
  const int64_t n = index.numel;
  const OffsetCalc<1> calc = offset_calc<1>("scatter_add", index.sizes.vec(), {with_zero_at(out.strides, dim)});
  dispatch_type("scatter_add", out.dtype, [&]<typename T>() {
    const LaunchShape ls = launch_1d(n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, scatter_add_kernel<T>)
    (n, calc, out.strides[dim], index.ptr<const int64_t>(), out.ptr<T>(), src.ptr<const T>());
    check_launch("scatter_add");
  });
}

}  // namespace ember::cuda
