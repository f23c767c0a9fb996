"""nanoGPT-style sampling speed in PyTorch: the peer of `ember-charlm sample` (scripts/bench_sample.sh).

The model is nanoGPT's GPT (model.py: pre-LayerNorm blocks, fused c_attn, GELU MLP, tied lm_head)
with random weights at the `video` preset's size, and the loop is nanoGPT's generate(): crop the
context to block_size, run the whole context, take the last position's logits / temperature, top-k,
multinomial. nanoGPT keeps no KV cache, so every character costs a forward over the context.
This is a timing, not a reference: the weights are PyTorch's, not Ember's.

    /usr/bin/python3 bench/torch_sample.py --num_chars 2000 --threads 2
"""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        # torch 1.13 has no scaled_dot_product_attention: nanoGPT's "slow attention" path with its mask
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if hasattr(F, "scaled_dot_product_attention"):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            y = F.softmax(att, dim=-1) @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer, n_head, n_embd):
        super().__init__()
        self.block_size = block_size
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList([Block(n_embd, n_head, block_size) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.wte.weight = self.lm_head.weight
        for p in self.parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, idx):
        T = idx.size(1)
        x = self.wte(idx) + self.wpe(torch.arange(T, dtype=torch.long))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x)[:, [-1], :])  # nanoGPT's inference path: the last position only

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size:]
            logits = self(idx_cond)[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
        return idx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--num_chars", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--vocab_size", type=int, default=65)  # tiny Shakespeare's characters
    ap.add_argument("--top_k", type=int, default=200)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1337)
    model = GPT(args.vocab_size, block_size=256, n_layer=6, n_head=6, n_embd=384).eval()  # the video preset
    idx = torch.zeros((1, 1), dtype=torch.long)
    start = time.perf_counter()
    out = model.generate(idx, args.num_chars, temperature=0.8, top_k=args.top_k)
    seconds = time.perf_counter() - start
    print(f"torch {torch.__version__} nanoGPT generate: {args.num_chars} chars in {seconds:.2f} s, "
          f"{args.num_chars / seconds:.1f} chars/s, threads {args.threads}, out {tuple(out.shape)}")


if __name__ == "__main__":
    main()
