"""PyTorch's CPU matmul (oneDNN; AMX tiles on CPUs that have them) on bench_bf16's shapes: its peer.

The products of a GPT training step as bench/bench_bf16.cpp lists them, (M, N, K) with the same
layouts (x @ W^T, g @ W, g^T @ x, attention), each timed in float32 and in bfloat16 with bf16 inputs
and output, as autocast runs them. Prints GFLOP/s, best of --tries rounds of --reps calls.

    /work/venv-torch2/bin/python bench/torch_gemm.py --preset video --threads 1
"""
import argparse
import time

import torch


def shapes(preset):
    """(what, M, N, K, A transposed, B transposed): bench_bf16.cpp's list."""
    video = preset == "video"
    C, T, HS = (384, 256, 64) if video else (128, 64, 32)
    rows = 2048 if video else 768
    return [("qkv x@W^T", rows, 3 * C, C, False, True),
            ("fc x@W^T", rows, 4 * C, C, False, True),
            ("fc_proj x@W^T", rows, C, 4 * C, False, True),
            ("fc dx=g@W", rows, C, 4 * C, False, False),
            ("fc dW=g^T x", 4 * C, C, rows, True, False),
            ("att q@k^T", T, T, HS, False, True),
            ("att p@v", T, HS, T, False, False)]


def operand(rows, cols, trans, dtype):
    """op(X) (rows, cols): a transposed view of a (cols, rows) tensor when `trans`."""
    return torch.randn(cols, rows).to(dtype).t() if trans else torch.randn(rows, cols).to(dtype)


def gflops(M, N, K, ta, tb, dtype, reps, tries):
    a, b = operand(M, K, ta, dtype), operand(K, N, tb, dtype)
    torch.matmul(a, b)
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        for _ in range(reps):
            torch.matmul(a, b)
        best = min(best, (time.perf_counter() - start) / reps)
    return 2.0 * M * N * K / best / 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--preset", default="video", choices=["baby", "video"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--tries", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"# torch {torch.__version__}, {args.preset} shapes, {args.threads} thread(s); GFLOP/s, best of {args.tries}")
    print(f"{'product':15} {'M':>5} {'N':>5} {'K':>5} {'float32':>9} {'bfloat16':>9}")
    for what, M, N, K, ta, tb in shapes(args.preset):
        f32 = gflops(M, N, K, ta, tb, torch.float32, args.reps, args.tries)
        bf16 = gflops(M, N, K, ta, tb, torch.bfloat16, args.reps, args.tries)
        print(f"{what:15} {M:5} {N:5} {K:5} {f32:9.1f} {bf16:9.1f}")


if __name__ == "__main__":
    main()
