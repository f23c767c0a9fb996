#!/usr/bin/python3
"""Writes the PyTorch 1.13 references for tests/nn/test_resample.cpp (padding and interpolation).

Run with Debian's torch: /usr/bin/python3 scripts/gen_resample_fixtures.py

tests/fixtures/nn/resample.json
    one case per call of F.pad (every mode, 1-d/2-d/3-d, batched and unbatched, negative padding),
    of the padding modules, of F.interpolate (every mode with and without align_corners, by size and
    by scale_factor, up and down, recompute_scale_factor), of nn.Upsample and of pixel_shuffle /
    pixel_unshuffle and their modules, of nn.Fold / nn.Unfold, in float32 and float64,
    in the format of gen_pooling_norm_fixtures.py: named inputs, the output, fixed weights w and the
    gradients of (out * w).sum().
tests/fixtures/nn/embedding_bag.json
    F.embedding_bag in every mode (1-d input with offsets, 2-d input, empty bags, per_sample_weights,
    padding_idx, include_last_offset, max_norm), F.embedding with max_norm (the renormed weight as
    "renormed"), and nn.EmbeddingBag's first draws after torch.manual_seed(0) ("seed").
tests/fixtures/nn/bilinear_distance.json
    F.bilinear, nn.Bilinear's first draws after torch.manual_seed(0) ("seed"), F.cosine_similarity
    (broadcast, a zero vector) and nn.CosineSimilarity / nn.PairwiseDistance.
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from fixture_common import FIXTURES, encode, f64, wave, write

CASES = {}
BAGS = {}
DISTANCES = {}


def case(name, inputs, fn, table=CASES):
    """inputs: name -> tensor (floating ones require grad); fn(**inputs) -> output."""
    assert name not in table, name
    inputs = {k: v.detach().clone() for k, v in inputs.items()}
    encoded = {k: encode(v) for k, v in inputs.items()}  # before fn: max_norm rescales the weight in place
    for v in inputs.values():
        if v.is_floating_point():
            v.requires_grad_()
    out = fn(**inputs)
    w = wave(*out.shape, dtype=out.dtype, phase=0.41)
    (out * w).sum().backward()
    table[name] = {"inputs": encoded, "output": encode(out), "weight": encode(w),
                   "grads": {k: encode(v.grad) for k, v in inputs.items() if v.grad is not None}}
    return table[name]


# ---- F.pad ----
case("pad_constant_1d", {"x": wave(2, 3, 4)}, lambda x: F.pad(x, (1, 2), value=0.5))
case("pad_constant_negative", {"x": wave(2, 3, 5)}, lambda x: F.pad(x, (-1, 2, 1, -1)))
case("pad_constant_every_dim", {"x": wave(2, 3)}, lambda x: F.pad(x, (1, 1, 2, 0), value=-2.0))
case("pad_constant_3d_f64", {"x": wave(1, 2, 3, 3, 2, dtype=f64)}, lambda x: F.pad(x, (1, 0, 0, 2, 1, 1)))
case("pad_reflect_1d", {"x": wave(2, 3, 5)}, lambda x: F.pad(x, (2, 3), mode="reflect"))
case("pad_reflect_1d_unbatched_negative", {"x": wave(3, 5)}, lambda x: F.pad(x, (-1, 3), mode="reflect"))
case("pad_reflect_2d", {"x": wave(1, 1, 4, 5)}, lambda x: F.pad(x, (1, 2, 3, 0), mode="reflect"))
case("pad_reflect_3d_f64", {"x": wave(1, 1, 2, 3, 3, dtype=f64)}, lambda x: F.pad(x, (1, 2, 2, 1, 1, 1), mode="reflect"))
case("pad_replicate_1d", {"x": wave(2, 3, 4)}, lambda x: F.pad(x, (3, 1), mode="replicate"))
case("pad_replicate_2d_negative", {"x": wave(1, 2, 4, 5)}, lambda x: F.pad(x, (-1, 2, 2, -2), mode="replicate"))
case("pad_replicate_3d", {"x": wave(1, 2, 2, 3)}, lambda x: F.pad(x, (1, 1, 1, 0, 0, 2), mode="replicate"))
case("pad_replicate_2d_f64", {"x": wave(3, 2, 3, dtype=f64)}, lambda x: F.pad(x, (2, 2, 1, 3), mode="replicate"))
case("pad_circular_1d", {"x": wave(2, 2, 5)}, lambda x: F.pad(x, (2, 3), mode="circular"))
case("pad_circular_2d_negative", {"x": wave(1, 2, 4, 5)}, lambda x: F.pad(x, (-1, 2, 2, -1), mode="circular"))
case("pad_circular_3d_f64", {"x": wave(1, 1, 2, 3, 3, dtype=f64)},
     lambda x: F.pad(x, (1, 1, 2, 2, 0, 2), mode="circular"))

# ---- padding modules ----
case("module_reflection_pad1d", {"x": wave(2, 3, 4)}, lambda x: nn.ReflectionPad1d((3, 1))(x))
case("module_reflection_pad2d", {"x": wave(1, 2, 3, 4)}, lambda x: nn.ReflectionPad2d(2)(x))
case("module_reflection_pad3d", {"x": wave(1, 3, 3, 2)}, lambda x: nn.ReflectionPad3d((1, 0, 2, 1, 0, 2))(x))
case("module_replication_pad1d", {"x": wave(3, 4)}, lambda x: nn.ReplicationPad1d(2)(x))
case("module_replication_pad2d", {"x": wave(1, 2, 3, 4)}, lambda x: nn.ReplicationPad2d((1, 2, 0, 3))(x))
case("module_replication_pad3d", {"x": wave(1, 1, 2, 3, 2)}, lambda x: nn.ReplicationPad3d(1)(x))
case("module_zero_pad2d", {"x": wave(1, 2, 3, 4)}, lambda x: nn.ZeroPad2d((1, -1, 2, 0))(x))
case("module_constant_pad1d", {"x": wave(2, 3, 4)}, lambda x: nn.ConstantPad1d((2, 1), 3.5)(x))
case("module_constant_pad2d", {"x": wave(2, 3, 4)}, lambda x: nn.ConstantPad2d(1, -1.0)(x))
case("module_constant_pad3d", {"x": wave(1, 2, 2, 3)}, lambda x: nn.ConstantPad3d((0, 1, 1, 0, 2, 1), 0.25)(x))

# ---- F.interpolate ----
def interp(**kw):
    return lambda x: F.interpolate(x, **kw)


case("nearest_1d_scale", {"x": wave(2, 3, 5)}, interp(scale_factor=1.7, mode="nearest"))
case("nearest_2d_size", {"x": wave(1, 2, 3, 4)}, interp(size=(5, 7), mode="nearest"))
case("nearest_2d_double", {"x": wave(1, 2, 3, 4)}, interp(scale_factor=2, mode="nearest"))
case("nearest_3d_down_f64", {"x": wave(1, 1, 2, 6, 4, dtype=f64)}, interp(size=(3, 5, 2), mode="nearest"))
case("nearest_exact_2d", {"x": wave(1, 2, 5, 4)}, interp(size=(3, 7), mode="nearest-exact"))
case("nearest_exact_1d_scale_f64", {"x": wave(2, 2, 6, dtype=f64)}, interp(scale_factor=0.6, mode="nearest-exact"))
case("linear", {"x": wave(2, 3, 5)}, interp(size=8, mode="linear", align_corners=False))
case("linear_align", {"x": wave(2, 3, 5)}, interp(scale_factor=1.5, mode="linear", align_corners=True))
case("linear_down", {"x": wave(2, 2, 9)}, interp(size=4, mode="linear", align_corners=False))
case("linear_scale_f64", {"x": wave(1, 2, 4, dtype=f64)}, interp(scale_factor=2.3, mode="linear", align_corners=False))
case("bilinear", {"x": wave(1, 2, 4, 5)}, interp(scale_factor=(1.5, 2.0), mode="bilinear", align_corners=False))
case("bilinear_align", {"x": wave(1, 2, 4, 5)}, interp(size=(7, 3), mode="bilinear", align_corners=True))
case("bilinear_recompute", {"x": wave(2, 1, 4, 5)},
     interp(scale_factor=1.3, mode="bilinear", align_corners=False, recompute_scale_factor=True))
case("bilinear_f64", {"x": wave(1, 2, 3, 4, dtype=f64)}, interp(size=(5, 2), mode="bilinear", align_corners=False))
case("bilinear_align_f64", {"x": wave(1, 1, 3, 4, dtype=f64)},
     interp(scale_factor=(2.5, 1.5), mode="bilinear", align_corners=True))
case("bicubic", {"x": wave(1, 2, 4, 5)}, interp(size=(6, 9), mode="bicubic", align_corners=False))
case("bicubic_align", {"x": wave(1, 2, 4, 5)}, interp(size=(7, 4), mode="bicubic", align_corners=True))
case("bicubic_down_scale", {"x": wave(1, 1, 6, 7)}, interp(scale_factor=0.5, mode="bicubic", align_corners=False))
case("bicubic_f64", {"x": wave(1, 2, 3, 4, dtype=f64)}, interp(scale_factor=(2.0, 1.5), mode="bicubic",
                                                               align_corners=False))
case("bicubic_align_f64", {"x": wave(1, 1, 4, 3, dtype=f64)}, interp(size=(5, 6), mode="bicubic", align_corners=True))
# antialias: a widened, normalised filter when shrinking (and A = -0.5 for bicubic), by size and by scale.
case("bilinear_aa_down", {"x": wave(1, 2, 9, 8)}, interp(size=(4, 3), mode="bilinear", align_corners=False,
                                                         antialias=True))
case("bilinear_aa_align_up", {"x": wave(1, 1, 4, 5)}, interp(size=(6, 3), mode="bilinear", align_corners=True,
                                                             antialias=True))
case("bicubic_aa_scale", {"x": wave(1, 2, 9, 7)}, interp(scale_factor=(0.4, 1.6), mode="bicubic", align_corners=False,
                                                         antialias=True))
case("bicubic_aa_align_f64", {"x": wave(1, 1, 8, 6, dtype=f64)}, interp(size=(3, 1), mode="bicubic",
                                                                       align_corners=True, antialias=True))
case("trilinear", {"x": wave(1, 1, 2, 3, 2)}, interp(scale_factor=2, mode="trilinear", align_corners=False))
case("trilinear_align", {"x": wave(1, 1, 3, 4, 2)}, interp(size=(4, 5, 3), mode="trilinear", align_corners=True))
case("trilinear_f64", {"x": wave(1, 1, 2, 3, 4, dtype=f64)}, interp(size=(3, 2, 6), mode="trilinear",
                                                                    align_corners=False))
case("trilinear_align_f64", {"x": wave(1, 1, 2, 3, 2, dtype=f64)},
     interp(scale_factor=(1.5, 2.0, 2.5), mode="trilinear", align_corners=True))
case("area_1d", {"x": wave(2, 3, 7)}, interp(size=3, mode="area"))
case("area_2d", {"x": wave(1, 2, 5, 7)}, interp(size=(2, 4), mode="area"))
case("area_2d_up_f64", {"x": wave(1, 1, 3, 2, dtype=f64)}, interp(size=(5, 3), mode="area"))
case("area_3d", {"x": wave(1, 1, 4, 5, 6)}, interp(scale_factor=0.5, mode="area"))

# ---- nn.Upsample ----
case("upsample_nearest", {"x": wave(1, 2, 2, 3)}, lambda x: nn.Upsample(scale_factor=3)(x))
case("upsample_bilinear_align", {"x": wave(1, 2, 3, 3)},
     lambda x: nn.Upsample(size=(5, 4), mode="bilinear", align_corners=True)(x))
case("upsample_linear_f64", {"x": wave(2, 1, 4, dtype=f64)},
     lambda x: nn.Upsample(scale_factor=2.5, mode="linear", align_corners=False)(x))

# ---- pixel shuffle ----
case("pixel_shuffle", {"x": wave(1, 8, 2, 3)}, lambda x: F.pixel_shuffle(x, 2))
case("pixel_shuffle_module_unbatched", {"x": wave(9, 2, 2)}, lambda x: nn.PixelShuffle(3)(x))
case("pixel_unshuffle", {"x": wave(2, 1, 4, 6)}, lambda x: F.pixel_unshuffle(x, 2))
case("pixel_unshuffle_module_extra_dims_f64", {"x": wave(2, 1, 2, 4, 2, dtype=f64)},
     lambda x: nn.PixelUnshuffle(2)(x))
# ---- fold / unfold modules ----
case("module_unfold", {"x": wave(1, 2, 4, 5)}, lambda x: nn.Unfold((2, 3), dilation=(1, 1), padding=1, stride=(2, 1))(x))
case("module_fold", {"x": wave(1, 8, 8)}, lambda x: nn.Fold((3, 4), 2, stride=1, padding=(0, 1), dilation=(1, 2))(x))


# ---- embedding_bag ----
def ids(*values):
    return torch.tensor(values, dtype=torch.long)


def bag(name, inputs, **kw):
    case(name, inputs, lambda **a: F.embedding_bag(a["input"], a["w"], offsets=a.get("offsets"),
                                                    per_sample_weights=a.get("psw"), **kw), BAGS)


W = wave(6, 3, scale=2.0)
FLAT, OFFSETS = ids(1, 2, 4, 5, 4, 3, 2, 0), ids(0, 3, 3, 6)
bag("sum_offsets_empty_bag", {"input": FLAT, "offsets": OFFSETS, "w": W}, mode="sum")
bag("mean_offsets_empty_bag", {"input": FLAT, "offsets": OFFSETS, "w": W}, mode="mean")
bag("max_offsets_empty_bag", {"input": FLAT, "offsets": OFFSETS, "w": W}, mode="max")
bag("mean_2d", {"input": ids(1, 2, 4, 5, 4, 3).reshape(3, 2), "w": W})
bag("max_2d_f64", {"input": ids(1, 2, 4, 5, 4, 3).reshape(2, 3), "w": W.double()}, mode="max")
bag("sum_per_sample_weights", {"input": FLAT, "offsets": ids(0, 2, 5), "w": W, "psw": wave(8, phase=1.1)},
    mode="sum")
bag("sum_per_sample_weights_2d_f64", {"input": ids(1, 2, 4, 5, 4, 3).reshape(3, 2), "w": W.double(),
                                      "psw": wave(3, 2, phase=1.1, dtype=f64)}, mode="sum")
bag("mean_padding_idx_last_offset", {"input": FLAT, "offsets": ids(0, 2, 5, 8), "w": W}, mode="mean",
    padding_idx=2, include_last_offset=True)
bag("max_padding_idx", {"input": FLAT, "offsets": ids(0, 1, 4), "w": W}, mode="max", padding_idx=1)
bag("sum_max_norm", {"input": FLAT, "offsets": ids(0, 4), "w": W}, mode="sum", max_norm=1.5)
case("embedding_max_norm", {"input": ids(0, 2, 2, 5), "w": W},
     lambda input, w: F.embedding(input, w, max_norm=1.0, norm_type=1.0), BAGS)
with torch.no_grad():
    renormed = W.clone()
    F.embedding(ids(0, 2, 2, 5), renormed, max_norm=1.0, norm_type=1.0)
BAGS["embedding_max_norm"]["renormed"] = encode(renormed)
torch.manual_seed(0)
BAGS["seed"] = {"seed": 0, "embedding_bag_5_3": encode(nn.EmbeddingBag(5, 3).weight)}

# ---- bilinear and distances ----
case("bilinear", {"x1": wave(4, 3), "x2": wave(4, 5, phase=0.3), "w": wave(2, 3, 5, phase=0.7), "b": wave(2, phase=2)},
     lambda x1, x2, w, b: F.bilinear(x1, x2, w, b), DISTANCES)
case("bilinear_no_bias_3d_f64", {"x1": wave(2, 3, 3, dtype=f64), "x2": wave(2, 3, 2, phase=0.3, dtype=f64),
                                 "w": wave(4, 3, 2, phase=0.7, dtype=f64)},
     lambda x1, x2, w: F.bilinear(x1, x2, w), DISTANCES)
case("cosine_similarity", {"a": wave(4, 5), "b": wave(4, 5, phase=0.9)}, lambda a, b: F.cosine_similarity(a, b),
     DISTANCES)
case("cosine_similarity_broadcast_dim0_f64", {"a": wave(3, 4, dtype=f64), "b": wave(3, 1, phase=0.9, dtype=f64)},
     lambda a, b: F.cosine_similarity(a, b, dim=0), DISTANCES)
case("cosine_similarity_zero_vector", {"a": torch.cat([wave(1, 3), torch.zeros(1, 3)]), "b": wave(2, 3, phase=0.9)},
     lambda a, b: nn.CosineSimilarity(dim=1, eps=1e-6)(a, b), DISTANCES)
case("pairwise_distance_module", {"a": wave(3, 4), "b": wave(3, 4, phase=0.9)},
     lambda a, b: nn.PairwiseDistance(p=1, keepdim=True)(a, b), DISTANCES)
torch.manual_seed(0)
bilinear = nn.Bilinear(3, 4, 2)
DISTANCES["seed"] = {"seed": 0, "bilinear_3_4_2_weight": encode(bilinear.weight),
                     "bilinear_3_4_2_bias": encode(bilinear.bias)}


if __name__ == "__main__":
    torch.set_num_threads(1)
    write(os.path.join(FIXTURES, "nn", "resample.json"), CASES)
    write(os.path.join(FIXTURES, "nn", "embedding_bag.json"), BAGS)
    write(os.path.join(FIXTURES, "nn", "bilinear_distance.json"), DISTANCES)
