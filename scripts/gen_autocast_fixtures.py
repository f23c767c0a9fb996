#!/usr/bin/env python3
"""Writes tests/fixtures/autocast/lists.json: which of the ops in Ember's autocast table
(EMBER_AUTOCAST_OPS in autograd/autocast.h) PyTorch registers an autocast kernel for, per device,
read from the dispatcher of the installed torch (no GPU needed: the registrations exist anyway).
tests/autograd/test_autocast.cpp checks that Ember's policy is not `none` exactly where PyTorch has a
kernel, so an op that leaves or joins PyTorch's lists shows up as a failing test.

Run with Debian's torch (1.13): /usr/bin/python3 scripts/gen_autocast_fixtures.py
The op names are Ember's; the value is the ATen overload whose registration is read.
"""
import json
import os

import torch

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "autocast", "lists.json")

# Ember's op -> the ATen operator (and overload) holding its autocast kernel.
ATEN = {
    "conv1d": "conv1d", "conv2d": "conv2d", "conv3d": "conv3d", "conv_tbc": "conv_tbc",
    "conv_transpose1d": "conv_transpose1d", "conv_transpose2d": "conv_transpose2d.input",
    "conv_transpose3d": "conv_transpose3d.input",
    "linear": "linear", "matmul": "matmul", "addmm": "addmm", "mm": "mm", "bmm": "bmm", "baddbmm": "baddbmm",
    "addbmm": "addbmm", "addmv": "addmv", "addr": "addr", "mv": "mv", "einsum": "einsum",
    "chain_matmul": "chain_matmul", "multi_dot": "linalg_multi_dot", "prelu": "prelu", "lstm_cell": "lstm_cell",
    "gru_cell": "gru_cell", "rnn_tanh_cell": "rnn_tanh_cell", "rnn_relu_cell": "rnn_relu_cell", "scaled_dot_product_attention": "scaled_dot_product_attention",
    "cross_entropy": "cross_entropy_loss", "nll_loss": "nll_loss", "mse_loss": "mse_loss",
    "l1_loss": "l1_loss", "smooth_l1_loss": "smooth_l1_loss", "huber_loss": "huber_loss", "kl_div": "kl_div",
    "poisson_nll_loss": "poisson_nll_loss", "margin_ranking_loss": "margin_ranking_loss",
    "hinge_embedding_loss": "hinge_embedding_loss", "cosine_embedding_loss": "cosine_embedding_loss",
    "soft_margin_loss": "soft_margin_loss", "multi_margin_loss": "multi_margin_loss",
    "multilabel_margin_loss": "multilabel_margin_loss", "triplet_margin_loss": "triplet_margin_loss",
    "binary_cross_entropy_with_logits": "binary_cross_entropy_with_logits",
    "binary_cross_entropy": "binary_cross_entropy", "cdist": "cdist", "layer_norm": "layer_norm",
    "group_norm": "group_norm", "softmax": "softmax.int", "log_softmax": "log_softmax.int", "sum": "sum",
    "prod": "prod", "cumsum": "cumsum", "cumprod": "cumprod", "logsumexp": "logsumexp", "exp": "exp",
    "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
    "reciprocal": "reciprocal", "rsqrt": "rsqrt", "pow": "pow.Tensor_Scalar", "tan": "tan", "asin": "asin",
    "acos": "acos", "sinh": "sinh", "cosh": "cosh", "erfinv": "erfinv", "renorm": "renorm",
    "softplus": "softplus", "cosine_similarity": "cosine_similarity", "dist": "dist", "pdist": "pdist",
    "addcmul": "addcmul", "addcdiv": "addcdiv", "atan2": "atan2",
}


def registered(table, key):
    return any(line.startswith(key + ": registered") for line in table.splitlines())


def main():
    lists = {}
    for op, aten in ATEN.items():
        try:
            table = torch._C._dispatch_dump_table("aten::" + aten)
        except RuntimeError:  # an operator this torch does not have
            lists[op] = {"cpu": False, "cuda": False, "exists": False}
            continue
        lists[op] = {"cpu": registered(table, "AutocastCPU"), "cuda": registered(table, "AutocastCUDA"),
                     "exists": True}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"torch": torch.__version__, "lists": lists}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
