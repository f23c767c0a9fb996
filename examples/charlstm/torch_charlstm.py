"""ember-charlstm's run in PyTorch: the reference its validation loss is compared with.

The same model (Embedding -> LSTM -> Linear, built in this order, so torch.manual_seed gives the weights
Ember's generator gives), the same data (characters of tiny Shakespeare, sorted vocabulary, 90/10
split), the same batches (torch.randint starts drawn from the default generator, as Ember's get_batch
draws them), AdamW with weight decay on matrices only, nanoGPT's warmup-then-cosine learning rate,
gradient clipping, and the same evals (mean loss over eval_iters batches of each split, no dropout)
at the same steps. examples/charlm/trainer.cpp's loop, line for line.

    /work/venv-torch2/bin/python examples/charlstm/torch_charlstm.py --preset small --threads 1 \
        > examples/charlstm/torch_reference.txt
    ember-charlstm train --preset small --threads 1 --out_dir out-lstm     # the same run in Ember

torch_reference.txt's times were taken on 2 cores shared with several compilers: its losses are the
reference, its seconds are not a speed.
"""
import argparse
import datetime
import math
import platform
import subprocess
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

# ember-charlstm's presets (examples/charlstm/lstm_family.cpp): model, then batch and schedule.
BASE = dict(n_layer=2, n_embd=32, hidden_size=128, block_size=64, batch_size=32, dropout=0.0, learning_rate=2e-3,
            min_lr=2e-4, warmup_iters=30, max_iters=600, lr_decay_iters=600, eval_interval=200, eval_iters=20,
            weight_decay=0.1, beta1=0.9, beta2=0.99, grad_clip=1.0, seed=1337)
PRESETS = {
    "tiny": dict(BASE, n_layer=1, block_size=32, max_iters=300, lr_decay_iters=300, eval_interval=100),
    "small": BASE,
    "large": dict(BASE, n_layer=3, n_embd=128, hidden_size=512, block_size=100, batch_size=64, dropout=0.5,
                  max_iters=5000, lr_decay_iters=5000, warmup_iters=100, eval_interval=500, eval_iters=200),
}


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, c):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, c["n_embd"])
        self.lstm = nn.LSTM(c["n_embd"], c["hidden_size"], num_layers=c["n_layer"], batch_first=True,
                            dropout=c["dropout"])
        self.lm_head = nn.Linear(c["hidden_size"], vocab_size)

    def loss(self, x, y):
        out, _ = self.lstm(self.wte(x))
        logits = self.lm_head(out)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))


def get_batch(data, c, gen=None):
    T = c["block_size"]
    ix = torch.randint(0, len(data) - T, (c["batch_size"],), generator=gen)
    x = torch.stack([data[i:i + T] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + T] for i in ix])
    return x, y


def nanogpt_lr(it, c):
    if it < c["warmup_iters"]:
        return c["learning_rate"] * (it + 1) / (c["warmup_iters"] + 1)
    if it > c["lr_decay_iters"] or c["lr_decay_iters"] == c["warmup_iters"]:
        return c["min_lr"]
    ratio = (it - c["warmup_iters"]) / (c["lr_decay_iters"] - c["warmup_iters"])
    return c["min_lr"] + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (c["learning_rate"] - c["min_lr"])


@torch.no_grad()
def estimate_loss(model, train, val, c, gen):
    model.eval()
    out = []
    for data in (train, val):
        out.append(sum(model.loss(*get_batch(data, c, gen)).item() for _ in range(c["eval_iters"])) / c["eval_iters"])
    model.train()
    return out


def cpu_model():
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", choices=PRESETS, default="small")
    ap.add_argument("--data", default="data/tinyshakespeare.txt")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max_iters", type=int)
    args = ap.parse_args()
    c = dict(PRESETS[args.preset])
    if args.max_iters is not None:
        c["max_iters"] = args.max_iters
    torch.set_num_threads(args.threads)
    print(f"torch_charlstm.py: PyTorch {torch.__version__}, {args.threads} threads, CPU {cpu_model()}, "
          f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC")
    print("settings: " + ", ".join(f"{k} {v}" for k, v in c.items()))

    with open(args.data, encoding="utf-8") as f:
        text = f.read()
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = torch.tensor([stoi[ch] for ch in text], dtype=torch.long)
    n = len(data) * 9 // 10
    train, val = data[:n], data[n:]

    torch.manual_seed(c["seed"])
    model = CharLSTM(len(chars), c)
    params = list(model.parameters())
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": c["weight_decay"]},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=c["learning_rate"], betas=(c["beta1"], c["beta2"]))
    print(f"{len(text)} characters (vocabulary {len(chars)}), {len(train)} train / {len(val)} val; "
          f"model {sum(p.numel() for p in params) / 1e6:.2f}M parameters")

    start = time.perf_counter()
    for it in range(c["max_iters"] + 1):
        lr = nanogpt_lr(it, c)
        for g in opt.param_groups:
            g["lr"] = lr
        scheduled = it % c["eval_interval"] == 0
        if scheduled or it == c["max_iters"]:
            # Off the schedule, the end-of-run eval draws from its own generator, as the trainer's does.
            gen = None if scheduled else torch.Generator().manual_seed(c["seed"] + it)
            tr, va = estimate_loss(model, train, val, c, gen)
            print(f"step {it}: train loss {tr:.4f}, val loss {va:.4f} ({time.perf_counter() - start:.0f} s)",
                  flush=True)
        if it >= c["max_iters"]:
            break
        loss = model.loss(*get_batch(train, c))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if c["grad_clip"] > 0:
            torch.nn.utils.clip_grad_norm_(params, c["grad_clip"])
        opt.step()
    wall = time.perf_counter() - start
    tokens = c["max_iters"] * c["batch_size"] * c["block_size"]
    print(f"summary: steps {c['max_iters']}, val loss {va:.4f}, wall {wall:.1f} s ({tokens / wall:.0f} tokens/s)")


if __name__ == "__main__":
    main()
