// CUDA indexing kernels: index_select / index_add (embedding forward and backward) and
// gather / scatter_add (cross-entropy's pick of the target logit and its gradient).
//
// One thread per element moved. scatter_add, and index_add on int64, use atomicAdd, so repeated
// indices add up correctly (exactly, for integers); the order of float additions through atomics
// is not fixed, so scatter_add's results may differ from the CPU in the last bits and between runs
// (PyTorch's CUDA scatter_add behaves the same way). index_add on floating types (embedding's
// backward) is deterministic instead: the host sorts the index positions by index value into
// segments (cuda/backend.cpp), split into chunks of at most kIndexAddChunk positions; a first pass
// sums each chunk's src rows in position order, a second adds each segment's chunk sums, in chunk
// order, to its row of out. No atomics, the same bits every run. bool has no atomic add and is
// rejected by cuda/backend.cpp before it gets here.
#include "cuda/kernels.h"

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

void launch_index_select(cudaStream_t s, ScalarType type, Blocks3 in_blocks, int64_t n_index, const int64_t* idx,
                         void* out, const void* in) {
  dispatch_type(type, [&]<typename T>() {
    const LaunchShape ls = launch_1d(in_blocks.outer * n_index * in_blocks.inner);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, index_select_kernel<T>)
    (in_blocks, n_index, idx, static_cast<T*>(out), static_cast<const T*>(in));
    check_launch("index_select");
  });
}

void launch_index_add(cudaStream_t s, ScalarType type, Blocks3 out_blocks, int64_t n_index, const int64_t* idx,
                      void* out, const void* src) {
  dispatch_type(type, [&]<typename T>() {
    const LaunchShape ls = launch_1d(out_blocks.outer * n_index * out_blocks.inner);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, index_add_kernel<T>)
    (out_blocks, n_index, idx, static_cast<T*>(out), static_cast<const T*>(src));
    check_launch("index_add");
  });
}

void launch_index_add_sorted(cudaStream_t s, ScalarType type, Blocks3 out_blocks, int64_t n_index,
                             const IndexSegments& seg, void* partial, void* out, const void* src) {
  dispatch_floating_type("index_add", type, [&]<typename T>() {
    const LaunchShape chunk_ls = launch_1d(out_blocks.outer * seg.chunks * out_blocks.inner);
    if (chunk_ls.grid == 0) return;
    EMBER_LAUNCH(chunk_ls.grid, chunk_ls.block, 0, s, index_add_chunks_kernel<T>)
    (out_blocks, n_index, seg.chunks, seg.order, seg.chunk_begin, static_cast<T*>(partial),
     static_cast<const T*>(src));
    check_launch("index_add");
    const LaunchShape seg_ls = launch_1d(out_blocks.outer * seg.segments * out_blocks.inner);
    EMBER_LAUNCH(seg_ls.grid, seg_ls.block, 0, s, index_add_segments_kernel<T>)
    (out_blocks, seg.chunks, seg.segments, seg.rows, seg.seg_begin, static_cast<T*>(out),
     static_cast<const T*>(partial));
    check_launch("index_add");
  });
}

void launch_gather(cudaStream_t s, ScalarType type, int64_t n, const OffsetCalc<1>& calc, int64_t dim_stride,
                   const int64_t* idx, void* out, const void* in) {
  dispatch_type(type, [&]<typename T>() {
    const LaunchShape ls = launch_1d(n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, gather_kernel<T>)
    (n, calc, dim_stride, idx, static_cast<T*>(out), static_cast<const T*>(in));
    check_launch("gather");
  });
}

void launch_scatter_add(cudaStream_t s, ScalarType type, int64_t n, const OffsetCalc<1>& calc, int64_t dim_stride,
                        const int64_t* idx, void* out, const void* src) {
  dispatch_type(type, [&]<typename T>() {
    const LaunchShape ls = launch_1d(n);
    if (ls.grid == 0) return;
    EMBER_LAUNCH(ls.grid, ls.block, 0, s, scatter_add_kernel<T>)
    (n, calc, dim_stride, idx, static_cast<T*>(out), static_cast<const T*>(src));
    check_launch("scatter_add");
  });
}

}  // namespace ember::cuda
