#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/nn/test_rnn.cpp.

Run with Debian's torch: /usr/bin/python3 scripts/gen_rnn_fixtures.py

tests/fixtures/nn/rnn.json
    one case per module configuration (LSTM, GRU, RNN over layers 1-3, bidirectional, batch_first,
    proj_size, no bias, unbatched input, packed sequences of unequal lengths, dropout while training),
    float32 and float64. Each module is built right after torch.manual_seed(seed), so "params" are
    PyTorch's initial draws; then the forward on fixed inputs (sin waves: no draws, except dropout's),
    the output and final states, and the gradients of
        (output * w_out).sum() + (h_n * w_h).sum() [+ (c_n * w_c).sum()]
    (the weights w are waves with phases 0.41, 0.83 and 1.17, rebuilt by the test with wave64)
    for the input, h0 / c0 (when given) and every parameter.
tests/fixtures/nn/rnn_cells.json
    the same for RNNCell, LSTMCell and GRUCell (one step, batched and unbatched).
tests/fixtures/nn/rnn_utils.json
    pack_padded_sequence / pad_packed_sequence / pad_sequence / pack_sequence results.
"""
import os
import struct

import torch
import torch.nn as nn
from torch.nn.utils import rnn as rnn_utils

from fixture_common import FIXTURES, encode, f32, f64, wave, write

def short(v, dtype):
    """The fewest digits that give back the same float32 (exact), or 12 digits of a float64 result."""
    if dtype == f64:
        return float("%.12g" % v)
    bits = struct.pack("f", v)
    for digits in range(6, 10):
        text = "%.*g" % (digits, v)
        if struct.pack("f", float(text)) == bits:
            return float(text)
    return v


def compact(t, exact=False, drawn=False):
    """encode() with shorter numbers: float32 values round-trip exactly, float64 results keep 12
    digits (the tests compare them to 1e-9 at best); exact float64 inputs keep every digit;
    drawn float64 values (float32 draws widened) are written as the float32 they are."""
    e = encode(t)
    if t.is_floating_point() and not (exact and t.dtype == f64):
        e["values"] = [short(v, f32 if drawn else t.dtype) for v in e["values"]]
    return e


I, H, T, B = 2, 3, 4, 2  # input size, hidden size, steps, batch: tiny, so the fixtures stay small

CASES = {}


def options_of(module, kind, extra):
    o = {"kind": kind, "input_size": module.input_size, "hidden_size": module.hidden_size}
    o.update(extra)
    return o


def module_case(name, kind, dtype=f32, seed=0, given_state=True, packed=None, unbatched=False, train=False,
                keep_params=False, **options):
    """kind: "LSTM", "GRU", "RNN" (options may hold nonlinearity="relu"). packed: lengths for a padded
    batch packed with enforce_sorted=False (the forward then runs through forward_with_packed_input).
    keep_params: write the initial draws (a few cases do; the others rely on them, to stay small)."""
    assert name not in CASES, name
    torch.manual_seed(seed)
    cls = {"LSTM": nn.LSTM, "GRU": nn.GRU, "RNN": nn.RNN}[kind]
    m = cls(I, H, **options).to(dtype)
    m.train(train)
    batch_first = options.get("batch_first", False)
    D = 2 if options.get("bidirectional", False) else 1
    LD = options.get("num_layers", 1) * D
    H_out = options.get("proj_size", 0) or H
    batch = 3 if packed else B
    if unbatched:
        x = wave(T, I, dtype=dtype)
        state_shape = (LD, H_out)
        cell_shape = (LD, H)
    else:
        x = wave(batch, T, I, dtype=dtype) if batch_first else wave(T, batch, I, dtype=dtype)
        state_shape = (LD, batch, H_out)
        cell_shape = (LD, batch, H)
    inputs = {"x": x.clone().requires_grad_()}
    if given_state:
        inputs["h0"] = wave(*state_shape, dtype=dtype, phase=1.3, scale=0.5).requires_grad_()
        if kind == "LSTM":
            inputs["c0"] = wave(*cell_shape, dtype=dtype, phase=2.1, scale=0.5).requires_grad_()
    params = {k: v.detach().clone() for k, v in m.named_parameters()}
    state = None
    if given_state:
        state = (inputs["h0"], inputs["c0"]) if kind == "LSTM" else inputs["h0"]
    if packed:
        lengths = torch.tensor(packed, dtype=torch.int64)
        seq = rnn_utils.pack_padded_sequence(inputs["x"], lengths, batch_first=batch_first, enforce_sorted=False)
        out_packed, hidden = m(seq, state)
        out, _ = rnn_utils.pad_packed_sequence(out_packed, batch_first=batch_first)
    else:
        out, hidden = m(inputs["x"], state)
    h_n, c_n = hidden if kind == "LSTM" else (hidden, None)
    w_out = wave(*out.shape, dtype=dtype, phase=0.41)
    w_h = wave(*h_n.shape, dtype=dtype, phase=0.83)
    loss = (out * w_out).sum() + (h_n * w_h).sum()
    entry = {"options": options_of(m, kind, options), "dtype": str(dtype).replace("torch.", ""), "seed": seed,
             "train": train, "param_names": list(params),
             "inputs": {k: compact(v, exact=True) for k, v in inputs.items()}, "output": compact(out),
             "h_n": compact(h_n)}
    if keep_params:
        entry["params"] = {k: compact(v, drawn=True) for k, v in params.items()}
    if packed:
        entry["lengths"] = packed
    if c_n is not None:
        w_c = wave(*c_n.shape, dtype=dtype, phase=1.17)
        loss = loss + (c_n * w_c).sum()
        entry["c_n"] = compact(c_n)
    loss.backward()
    entry["input_grads"] = {k: compact(v.grad) for k, v in inputs.items()}
    entry["param_grads"] = {k: compact(v.grad) for k, v in m.named_parameters()}
    CASES[name] = entry


# LSTM
module_case("lstm_1layer", "LSTM", seed=1)
module_case("lstm_zero_state_f64", "LSTM", dtype=f64, seed=2, given_state=False)
module_case("lstm_2layer_bidirectional", "LSTM", seed=3, num_layers=2, bidirectional=True)
module_case("lstm_3layer_batch_first_f64", "LSTM", dtype=f64, seed=4, num_layers=3, batch_first=True, keep_params=True)
module_case("lstm_proj_bidirectional", "LSTM", seed=5, num_layers=2, bidirectional=True, proj_size=2, keep_params=True)
module_case("lstm_no_bias_f64", "LSTM", dtype=f64, seed=6, bias=False)
module_case("lstm_unbatched", "LSTM", seed=7, unbatched=True, num_layers=2)
module_case("lstm_unbatched_zero_state_f64", "LSTM", dtype=f64, seed=8, given_state=False, unbatched=True,
            bidirectional=True)
module_case("lstm_dropout_train", "LSTM", seed=9, num_layers=3, dropout=0.4, train=True)
module_case("lstm_dropout_eval", "LSTM", seed=9, num_layers=2, dropout=0.4)
module_case("lstm_packed_bidirectional", "LSTM", seed=10, packed=[2, 4, 1], num_layers=2, bidirectional=True)
module_case("lstm_packed_batch_first_f64", "LSTM", dtype=f64, seed=11, packed=[3, 1, 4], batch_first=True,
            proj_size=1)
# GRU
module_case("gru_1layer", "GRU", seed=21, keep_params=True)
module_case("gru_2layer_bidirectional_f64", "GRU", dtype=f64, seed=22, num_layers=2, bidirectional=True)
module_case("gru_batch_first_no_bias", "GRU", seed=23, batch_first=True, bias=False, given_state=False)
module_case("gru_unbatched_f64", "GRU", dtype=f64, seed=24, unbatched=True)
module_case("gru_dropout_train", "GRU", seed=25, num_layers=2, dropout=0.5, train=True)
module_case("gru_packed_bidirectional", "GRU", seed=26, packed=[2, 4, 1], bidirectional=True)
# RNN
module_case("rnn_tanh_2layer", "RNN", seed=31, num_layers=2)
module_case("rnn_relu_bidirectional_f64", "RNN", dtype=f64, seed=32, nonlinearity="relu", bidirectional=True,
            keep_params=True)
module_case("rnn_packed_batch_first", "RNN", seed=33, packed=[4, 2, 3], batch_first=True, given_state=False)

CELLS = {}


def cell_case(name, kind, dtype=f32, seed=0, given_state=True, unbatched=False, **options):
    """One step of RNNCell / LSTMCell / GRUCell; the loss weights are waves with phases 0.41 and 0.83."""
    torch.manual_seed(seed)
    m = {"RNNCell": nn.RNNCell, "LSTMCell": nn.LSTMCell, "GRUCell": nn.GRUCell}[kind](I, H, **options).to(dtype)
    lead = () if unbatched else (B,)
    inputs = {"x": wave(*lead, I, dtype=dtype).requires_grad_()}
    if given_state:
        inputs["h0"] = wave(*lead, H, dtype=dtype, phase=1.3, scale=0.5).requires_grad_()
        if kind == "LSTMCell":
            inputs["c0"] = wave(*lead, H, dtype=dtype, phase=2.1, scale=0.5).requires_grad_()
    params = {k: v.detach().clone() for k, v in m.named_parameters()}
    state = None
    if given_state:
        state = (inputs["h0"], inputs["c0"]) if kind == "LSTMCell" else inputs["h0"]
    result = m(inputs["x"], state)
    h, c = result if kind == "LSTMCell" else (result, None)
    loss = (h * wave(*h.shape, dtype=dtype, phase=0.41)).sum()
    entry = {"options": {"kind": kind, "input_size": I, "hidden_size": H, **options},
             "dtype": str(dtype).replace("torch.", ""), "seed": seed, "param_names": list(params),
             "params": {k: compact(v, drawn=True) for k, v in params.items()},
             "inputs": {k: compact(v, exact=True) for k, v in inputs.items()}, "h": compact(h)}
    if c is not None:
        loss = loss + (c * wave(*c.shape, dtype=dtype, phase=0.83)).sum()
        entry["c"] = compact(c)
    loss.backward()
    entry["input_grads"] = {k: compact(v.grad) for k, v in inputs.items()}
    entry["param_grads"] = {k: compact(v.grad) for k, v in m.named_parameters()}
    CELLS[name] = entry


cell_case("rnn_cell_tanh", "RNNCell", seed=41)
cell_case("rnn_cell_relu_zero_state_f64", "RNNCell", dtype=f64, seed=42, given_state=False, nonlinearity="relu")
cell_case("lstm_cell", "LSTMCell", seed=43)
cell_case("lstm_cell_unbatched_f64", "LSTMCell", dtype=f64, seed=44, unbatched=True)
cell_case("gru_cell", "GRUCell", seed=45)
cell_case("gru_cell_unbatched_no_bias_f64", "GRUCell", dtype=f64, seed=46, unbatched=True, bias=False)

UTILS = {}


def utils_case(name, inputs, fn):
    """fn(**inputs) -> dict of named results; the gradient of (result["padded"] * wave(phase 0.41)).sum()
    is written for every floating input."""
    inputs = {k: v.detach().clone().requires_grad_() if v.is_floating_point() else v for k, v in inputs.items()}
    results = fn(**inputs)
    entry = {"inputs": {k: encode(v) for k, v in inputs.items()},
             "results": {k: encode(v) for k, v in results.items() if v is not None}}
    padded = results["padded"]
    (padded * wave(*padded.shape, dtype=padded.dtype, phase=0.41)).sum().backward()
    entry["input_grads"] = {k: encode(v.grad) for k, v in inputs.items() if v.is_floating_point()}
    UTILS[name] = entry


def packed_results(packed, **pad_options):
    padded, lengths = rnn_utils.pad_packed_sequence(packed, **pad_options)
    return {"data": packed.data, "batch_sizes": packed.batch_sizes, "sorted_indices": packed.sorted_indices,
            "unsorted_indices": packed.unsorted_indices, "padded": padded, "lengths": lengths}


lengths_sorted = torch.tensor([4, 2, 1])
utils_case("pack_padded_sorted", {"x": wave(4, 3, 2, dtype=f64), "lengths": lengths_sorted},
           lambda x, lengths: packed_results(rnn_utils.pack_padded_sequence(x, lengths)))
utils_case("pack_padded_unsorted_batch_first",
           {"x": wave(3, 4, 2, dtype=f64), "lengths": torch.tensor([2, 4, 3])},
           lambda x, lengths: packed_results(
               rnn_utils.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False),
               batch_first=True, padding_value=-1.0, total_length=5))
utils_case("pad_sequence", {"a": wave(3, 2), "b": wave(1, 2, phase=1.0), "c": wave(2, 2, phase=2.0)},
           lambda a, b, c: {"padded": rnn_utils.pad_sequence([a, b, c], padding_value=0.5)})
utils_case("pad_sequence_batch_first", {"a": wave(3, 2), "b": wave(1, 2, phase=1.0), "c": wave(2, 2, phase=2.0)},
           lambda a, b, c: {"padded": rnn_utils.pad_sequence([a, b, c], batch_first=True)})
utils_case("pack_sequence_unsorted", {"a": wave(2, 3), "b": wave(3, 3, phase=1.0), "c": wave(1, 3, phase=2.0)},
           lambda a, b, c: packed_results(rnn_utils.pack_sequence([a, b, c], enforce_sorted=False)))


if __name__ == "__main__":
    write(os.path.join(FIXTURES, "nn", "rnn.json"), CASES)
    write(os.path.join(FIXTURES, "nn", "rnn_cells.json"), CELLS)
    write(os.path.join(FIXTURES, "nn", "rnn_utils.json"), UTILS)
