"""ember-charlstm's training step in PyTorch: the peer of `bench_lstm` (bench/bench_lstm.cpp).

Embedding -> LSTM -> Linear over 65 characters, cross-entropy, backward, gradient clipping and AdamW
(weight decay on matrices only), on random tokens, at bench_lstm's shapes. Prints the median wall and
process CPU ms per step of each shape (on a shared machine, CPU time is the fairer number; Google
Benchmark's "CPU" column is the same measure for bench_lstm).

    python bench/torch_lstm_step.py --threads 2                       # PyTorch 2.x from a venv
    OPENBLAS_CORETYPE=SkylakeX python bench/torch_lstm_step.py        # as bench_lstm is run
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 65
SHAPES = {  # B, T, C, H, L: bench/bench_lstm.cpp's kShapes
    "small": (32, 64, 32, 128, 2),
    "wide": (32, 64, 128, 512, 2),
    "long": (16, 256, 64, 256, 1),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--shape", choices=SHAPES, action="append")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    for name in args.shape or SHAPES:
        B, T, C, H, L = SHAPES[name]
        torch.manual_seed(1337)
        wte, lstm, head = nn.Embedding(VOCAB, C), nn.LSTM(C, H, num_layers=L, batch_first=True), nn.Linear(H, VOCAB)
        params = [p for m in (wte, lstm, head) for p in m.parameters()]
        groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
                  {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
        opt = torch.optim.AdamW(groups, lr=2e-3, betas=(0.9, 0.99))
        times, cpu_times = [], []
        for step in range(args.warmup + args.steps):
            x = torch.randint(VOCAB, (B, T))
            y = torch.randint(VOCAB, (B, T))
            start, cpu_start = time.perf_counter(), time.process_time()
            logits = head(lstm(wte(x))[0])
            loss = F.cross_entropy(logits.view(-1, VOCAB), y.view(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            loss.item()
            if step >= args.warmup:
                times.append(time.perf_counter() - start)
                cpu_times.append(time.process_time() - cpu_start)
        ms = 1000 * sorted(times)[len(times) // 2]
        cpu_ms = 1000 * sorted(cpu_times)[len(cpu_times) // 2]
        print(f"torch {torch.__version__} lstm_step/{name} threads {args.threads} ms/step {ms:.2f} "
              f"cpu_ms/step {cpu_ms:.2f} tok/s {B * T / ms * 1000:.0f}", flush=True)


if __name__ == "__main__":
    main()
