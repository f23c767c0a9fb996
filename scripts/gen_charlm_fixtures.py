#!/usr/bin/python3
"""Writes tests/fixtures/charlm/tiny_gpt.json: a tiny nanoGPT in PyTorch 1.13, its logits, loss and
parameter gradients for one batch, and the losses of its first 10 AdamW steps.

Run: /usr/bin/python3 scripts/gen_charlm_fixtures.py

The model is nanoGPT's model.py (pre-LayerNorm blocks, fused QKV attention, 4x GELU MLP, tied
lm_head), written out here with explicit masked softmax (torch 1.13 has no
scaled_dot_product_attention). tests/examples/test_charlm.cpp loads the same weights into ember::nn::GPT.
"""
import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "charlm")
VOCAB, BLOCK, LAYERS, HEADS, EMBD = 11, 8, 2, 2, 16
BATCH = 4


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(EMBD, 3 * EMBD)
        self.c_proj = nn.Linear(EMBD, EMBD)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(EMBD, dim=2)
        q = q.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        k = k.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        v = v.view(B, T, HEADS, C // HEADS).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(EMBD, 4 * EMBD)
        self.c_proj = nn.Linear(4 * EMBD, EMBD)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(EMBD)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(EMBD)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, EMBD)
        self.wpe = nn.Embedding(BLOCK, EMBD)
        self.h = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(EMBD)
        self.lm_head = nn.Linear(EMBD, VOCAB, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying, as nanoGPT
        for name, p in self.named_parameters():  # nanoGPT's init, made deterministic by the seed
            if name.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * LAYERS))
            elif p.dim() >= 2:
                torch.nn.init.normal_(p, 0.0, 0.02)
            elif name.endswith("bias"):
                torch.nn.init.normal_(p, 0.0, 0.02)  # nonzero biases make the gradient check stronger

    def forward(self, idx, targets):
        B, T = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(T))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return logits, F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))


def tensor(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
            "values": t.detach().reshape(-1).tolist()}


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(7)
    model = GPT()
    params = {n: tensor(p) for n, p in model.named_parameters()}
    g = torch.Generator().manual_seed(1)
    batches = [(torch.randint(0, VOCAB, (BATCH, BLOCK), generator=g),
                torch.randint(0, VOCAB, (BATCH, BLOCK), generator=g)) for _ in range(10)]
    x, y = batches[0]
    logits, loss = model(x, y)
    loss.backward()
    grads = {n: tensor(p.grad) for n, p in model.named_parameters()}
    model.zero_grad()

    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-2, betas=(0.9, 0.99))
    losses = []
    for bx, by in batches:
        _, l = model(bx, by)
        opt.zero_grad(set_to_none=True)
        l.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(l.item())

    fixture = {"torch_version": torch.__version__,
               "config": {"vocab_size": VOCAB, "block_size": BLOCK, "n_layer": LAYERS, "n_head": HEADS,
                          "n_embd": EMBD},
               "params": params, "x": tensor(x), "y": tensor(y), "logits": tensor(logits), "loss": loss.item(),
               "grads": grads, "batches": [[tensor(a), tensor(b)] for a, b in batches], "adamw_losses": losses}
    with open(os.path.join(OUT, "tiny_gpt.json"), "w") as f:
        json.dump(fixture, f)


if __name__ == "__main__":
    main()
