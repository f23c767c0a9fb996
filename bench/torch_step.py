"""nanoGPT's training step in PyTorch, float32 and bfloat16 autocast: the peer of `bench_gpt` (scripts/bench_bf16.sh).

The model is nanoGPT's GPT (bench/torch_sample.py's blocks plus dropout) at the `baby` or `video` preset's
size (bench/bench_gpt_common.h), trained as nanoGPT's train.py does: forward and loss under
`torch.autocast("cpu", dtype=torch.bfloat16)` when --dtype bfloat16, backward outside it, AdamW, float32
weights. Batches are random tokens: this is a timing, not a reference.

    python bench/torch_step.py --preset video --threads 2 --dtype bfloat16     # PyTorch 2.x from a venv
    python bench/torch_step.py --preset video --device cuda                     # the peer of bench_cuda

On CUDA each step is timed to its end (torch.cuda.synchronize), as bench_cuda waits for the device.
"""
import argparse
import contextlib
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from torch_sample import GPT

PRESETS = {  # n_layer, n_head, n_embd, block_size, batch_size, dropout: bench/bench_gpt_common.h
    "baby": (4, 4, 128, 64, 12, 0.0),
    "video": (6, 6, 384, 256, 64, 0.2),
}


def add_dropout(model, p):
    """nanoGPT's dropout: after the embeddings, on the attention output projection and the MLP output."""
    for block in model.h:
        block.attn.c_proj = nn.Sequential(block.attn.c_proj, nn.Dropout(p))
        block.mlp.append(nn.Dropout(p))
    model.drop = nn.Dropout(p)


def loss_of(model, idx, targets):
    T = idx.size(1)
    x = model.drop(model.wte(idx) + model.wpe(torch.arange(T, dtype=torch.long, device=idx.device)))
    for block in model.h:
        x = block(x)
    logits = model.lm_head(model.ln_f(x))
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", choices=PRESETS, default="baby")
    ap.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1337)
    n_layer, n_head, n_embd, block_size, batch_size, dropout = PRESETS[args.preset]
    model = GPT(65, block_size, n_layer, n_head, n_embd)
    add_dropout(model, dropout)
    model.to(args.device)
    model.train()
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1)
    ctx = torch.autocast(args.device, dtype=torch.bfloat16) if args.dtype == "bfloat16" else contextlib.nullcontext()
    times = []
    for step in range(args.warmup + args.steps):
        idx = torch.randint(65, (batch_size, block_size), device=args.device)
        targets = torch.randint(65, (batch_size, block_size), device=args.device)
        sync()
        start = time.perf_counter()
        with ctx:
            loss = loss_of(model, idx, targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        sync()
        if step >= args.warmup:
            times.append(time.perf_counter() - start)
    times.sort()
    ms = 1000 * times[len(times) // 2]
    where = torch.cuda.get_device_name() if args.device == "cuda" else f"threads {args.threads}"
    print(f"torch {torch.__version__} preset {args.preset} dtype {args.dtype} {where} "
          f"ms/step {ms:.1f} tok/s {batch_size * block_size / ms * 1000:.0f} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
