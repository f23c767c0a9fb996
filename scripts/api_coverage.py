#!/usr/bin/env python3
"""How much of libtorch's public C++ API a libtorch program finds in Ember::torch_compat, by name.

Reads libtorch 1.13's public headers (Debian's libtorch-dev), lists the names of each area (ATen's
functions, Tensor's methods, torch::nn's modules, options, functional, init and utils, torch::optim,
torch::data, serialization), and decides for each name whether Ember's compat target provides it with a
compile probe: a using-declaration of the name, `namespace p17 { using at::topk; }` or, for a Tensor
method, `struct p18 : at::Tensor { using at::Tensor::index_put_; };`. A using-declaration compiles for
any kind of name (overloads, templates, types, variables) and fails for a missing one, so one
syntax-only compile per area checks every name in it, and the compiler's error lines say which failed.
A name counts as provided when it exists; whether every overload and default matches libtorch is the
compat programs' business (tests/compat), not this script's.

Names with no meaning for Ember's CPU/CUDA dense tensors are left out, by the rules in EXCLUDED (each
with its reason); ATen's private names (a leading underscore) and backward/kernel entry points too.

    python3 scripts/api_coverage.py                  # table to stdout
    python3 scripts/api_coverage.py --write          # also docs/COMPAT.md's table and docs/API_COVERAGE.md
    LIBTORCH_INCLUDE=/usr/include CXX=g++ python3 scripts/api_coverage.py

Needs libtorch-dev's headers (apt-get install libtorch-dev) and a C++20 compiler; not Python's torch.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
INC = os.environ.get("LIBTORCH_INCLUDE", "/usr/include")
API = os.path.join(INC, "torch/csrc/api/include/torch")
CXX = os.environ.get("CXX", "g++")

# Left out of every area, with the reason the table prints.
EXCLUDED = [
    (r"^_|_backward(_out|_outf)?$|_forward(_out|_outf)?$|_jvp(_out|_outf)?$",
     "private ATen ops, autograd's backward kernels"),  # _jvp: forward-mode AD's kernels (glu_jvp)
    (r"(^|_)(cuda|cudnn|miopen|mkldnn|mkl|mps|vulkan|metal|xnnpack|fbgemm|hip|xla|ipu|ort|hpu|ve|xpu|lazy|"
     r"nnpack|thnn|vmap|meta)(_|$)|_overrideable(_out|_outf)?$|^(toBackend|record_stream)$",
     "another backend's entry points and queries"),  # _overrideable: the hook for out-of-tree backends
    (r"sparse|_csr|_csc|_bsr|_bsc|_coo|^(indices|values|crow_indices|col_indices|ccol_indices|row_indices|"
     r"to_dense|coalesce|is_coalesced|dense_dim|sparse_dim|hspmm|smm|sspaddmm)(_out|_outf)?$", "sparse tensors"),
    (r"quantiz|^q_|_per_tensor|_per_channel|^int_repr(_out|_outf)?$|qscheme|qint|fake_quant|choose_qparams",
     "quantized tensors"),
    (r"nested|^to_padded_tensor(_out|_outf)?$", "nested tensors"),
    (r"^(refine_names|rename_?|align_to|align_as|align_tensors|has_names|names|opt_names)$", "named tensors"),
    (r"^(view_as_real|view_as_complex|real|imag|conj|conj_physical_?|resolve_conj|resolve_neg|is_conj|is_neg|"
     r"angle|polar|complex|sgn_?|adjoint|is_complex|chalf|linalg_eig|linalg_eigvals)(_out|_outf)?$",
     "complex tensors"),  # linalg_eig/eigvals: a real matrix's eigenvalues are complex
    (r"^(fft_i?[rh]?fft[2n]?|stft|istft)(_out|_outf)?$", "complex tensors"),  # the transforms' results
    (r"symint|^sym_|^batch_norm_(stats|elemt|gather|update|backward)|^segment_reduce|^native_|^lift",
     "internal: symbolic shapes, kernels behind public ops"),
    # TensorImpl's reference counting and dispatch keys, which Ember's Tensor (a shared_ptr handle to
    # a plain TensorImpl, no dispatcher) does not have; expect_contiguous returns c10::MaybeOwned.
    (r"^(getIntrusivePtr|unsafeReleaseIntrusivePtr|unsafeReleaseTensorImpl|wrap_tensor_impl|weak_use_count|"
     r"key_set|enforce_invariants|expect_contiguous)$", "internal: TensorImpl's reference counts and dispatch keys"),
]
EXCLUDE_RULES = [(re.compile(p), why) for p, why in EXCLUDED]

# Why each group is left out, as docs/API_COVERAGE.md argues it.
ARGUMENTS = {
    "private ATen ops, autograd's backward kernels":
        "A leading underscore is ATen's mark for what is not public API; the backward (and forward-mode "
        "`_jvp`) kernels are what autograd calls, and a program gets them through `backward()` / "
        "`torch::autograd::grad`, which Ember has.",
    "another backend's entry points and queries":
        "CUDA's, cuDNN's, MKL-DNN's, MPS's, XLA's... own entry points and queries (`cudnn_convolution`, "
        "`is_mkldnn`), the `_overrideable` hooks for out-of-tree backends, `toBackend` (the deprecated "
        "Backend enum) and `record_stream` (the CUDA caching allocator's cross-stream bookkeeping: Ember's "
        "CUDA backend runs one stream per device). Ember's CUDA backend is reached through `.to(kCUDA)` and "
        "`torch::cuda::*`, as in libtorch.",
    "sparse tensors": "Ember has strided (dense) tensors only: no sparse COO/CSR layouts.",
    "quantized tensors": "Ember has no quantized dtypes (qint8, quint8) or quantization schemes.",
    "nested tensors": "Ember has no nested (ragged) tensors.",
    "named tensors": "Ember's tensors have no dimension names (PyTorch's named tensors are a prototype).",
    "complex tensors":
        "Ember has no complex dtypes, so the functions that take or return complex tensors (the FFT "
        "transforms, `view_as_complex`, `polar`, `linalg_eig` of a real matrix...) have no meaning here; "
        "using a complex dtype stops the build with a message (ember_compat/unsupported.h).",
    "internal: symbolic shapes, kernels behind public ops":
        "SymInt overloads (symbolic shapes for tracing compilers), functionalization's `lift`, and the "
        "`native_*` / `batch_norm_stats`-style kernels behind public ops Ember has (`native_layer_norm` is "
        "`layer_norm`).",
    "internal: TensorImpl's reference counts and dispatch keys":
        "`getIntrusivePtr`, `unsafeReleaseTensorImpl`, `weak_use_count`, `key_set`... expose c10's "
        "intrusive_ptr and dispatcher, which Ember's Tensor (a shared_ptr handle, no dispatcher) does not "
        "have; `expect_contiguous` returns c10::MaybeOwned (`contiguous()` is the public form).",
}
LIST_GROUPS_UP_TO = 120  # groups this small have their names listed

# Words that look like functions to a regex but are not names of the API.
NOT_NAMES = {"if", "for", "while", "switch", "return", "sizeof", "decltype", "static_assert", "alignof",
             "noexcept", "operator", "explicit", "TORCH_ARG", "TORCH_MODULE", "TORCH_MODULE_IMPL",
             "TORCH_API", "C10_API", "AT_ERROR", "TORCH_CHECK", "TORCH_INTERNAL_ASSERT", "C10_DEPRECATED",
             "C10_DEPRECATED_MESSAGE", "TORCH_WARN", "TORCH_ENUM_DECLARE", "FORWARD_HAS_DEFAULT_ARGS",
             "C10_NODISCARD", "AT_ASSERT", "TORCH_OPTIM_SERIALIZE_TORCH_ARG", "TORCH_OPTIM_DESERIALIZE_TORCH_ARG",
             "defined", "main"}


def excluded_because(name):
    copy = re.match(r"(.+)_copy(_out|_outf)?$", name)  # a view op's functionalization copy (and its out=)
    if copy and excluded_because(copy.group(1)):
        return excluded_because(copy.group(1))
    for rule, why in EXCLUDE_RULES:
        if rule.search(name):
            return why
    return None


def strip_code(text):
    """Comments, string and character literals and preprocessor lines removed; newlines kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(\\.|[^'\\\n])*'", "''", text)
    lines = []
    continued = False
    for line in text.split("\n"):
        is_pp = continued or line.lstrip().startswith("#")
        continued = is_pp and line.rstrip().endswith("\\")
        lines.append("" if is_pp else line)
    return "\n".join(lines)


def drop_template_heads(head):
    """`template <class T, int N = 3>` prefixes removed (their `class T` is not a declaration)."""
    out, i = [], 0
    while True:
        m = re.search(r"\btemplate\s*<", head[i:])
        if not m:
            out.append(head[i:])
            return "".join(out)
        out.append(head[i:i + m.start()])
        j, depth = i + m.end(), 1
        while j < len(head) and depth:
            depth += {"<": 1, ">": -1}.get(head[j], 0)
            j += 1
        i = j


def function_name(head):
    """The declared function's name in a declaration head `TORCH_API inline Tensor foo(...` or None."""
    head = drop_template_heads(head).strip()
    if not head or re.match(r"(using|typedef|friend|return|namespace|static_assert|public|private|protected)\b",
                            head):
        return None
    paren = head.find("(")
    if paren < 0:
        return None
    before = head[:paren].rstrip()
    m = re.search(r"(~?\w+)$", before)
    if not m or "operator" in before.split()[-1:] or re.search(r"\boperator\b", before):
        return None
    name = m.group(1)
    # A declaration has a type before its name; `FOO(x)` alone is a macro call.
    rest = before[:m.start()].strip()
    if not rest or rest.endswith(("=", ",", "(", ":", "?", "return")) or name in NOT_NAMES or name.isupper():
        return None
    return name


def declarations(path):
    """(scope path, kind, name) for every namespace-scope class, alias, function and TORCH_MODULE in a
    header, and for the members of its classes (scope path ends with the class's name)."""
    text = strip_code(open(path, encoding="utf-8", errors="replace").read())
    stack = []  # (kind, name): kind 'ns', 'class' or 'block'
    head_start = 0
    found = []

    def scope():
        return [n for k, n in stack if k in ("ns", "class")]

    def at_decl_scope():
        return all(k in ("ns", "class", "nsmark") for k, _ in stack)

    def record_head(head, ends_with_brace):
        head = head.strip()
        if not head or not at_decl_scope():
            return
        for m in re.finditer(r"\bTORCH_MODULE(?:_IMPL)?\s*\(\s*(\w+)", head):
            found.append((scope(), "module", m.group(1)))
        h = drop_template_heads(head)
        h = re.sub(r"^\s*(public|private|protected)\s*:", "", h)
        m = re.match(r"\s*using\s+(\w+)\s*=", h)
        if m:
            found.append((scope(), "type", m.group(1)))
            return
        m = re.match(r"\s*using\s+(?:namespace\s+)?([\w:]+)\s*$", h)
        if m and "namespace" not in h.split()[:2]:
            found.append((scope(), "using", m.group(1).split("::")[-1]))
            return
        m = re.match(r"\s*(?:class|struct|union)\s+(?:TORCH_API\s+|C10_API\s+|TORCH_PYTHON_API\s+)?(\w+)\s*(final)?\s*(:|$)",
                     h)
        if m and ends_with_brace:
            found.append((scope(), "type", m.group(1)))
            return
        m = re.match(r"\s*enum\s+(?:class\s+|struct\s+)?(\w+)", h)
        if m:
            found.append((scope(), "type", m.group(1)))
            return
        name = function_name(h)
        if name:
            found.append((scope(), "function", name))
            return
        # A variable at namespace scope: `constexpr ... kFoo = ...` or `extern const X kFoo;`
        m = re.match(r"\s*(?:static\s+|inline\s+|extern\s+|TORCH_API\s+)*(?:constexpr|const)\s+[\w:<>]+\s+(\w+)\s*(=|$|\{)",
                     h)
        if m and stack and stack[-1][0] == "ns":
            found.append((scope(), "variable", m.group(1)))

    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "{":
            head = text[head_start:i]
            h = drop_template_heads(head).strip()
            m = re.match(r"(?:inline\s+)?namespace\s*([\w:]*)\s*$", h)
            if m:
                for part in (m.group(1) or "<anon>").split("::"):
                    stack.append(("ns", part))
                # a nested `namespace a::b {` closes with one brace: remember how many it opened
                stack[-1] = ("ns", stack[-1][1])
                stack.append(("nsmark", len(m.group(1).split("::")) if m.group(1) else 1))
            else:
                record_head(head, True)
                m = re.match(r"\s*(?:(?:public|private|protected)\s*:\s*)?(?:class|struct|union)\s+"
                             r"(?:TORCH_API\s+|C10_API\s+)?(\w+)[^()]*$", h)
                if m and at_decl_scope():
                    stack.append(("class", m.group(1)))
                elif re.match(r"\s*enum\b", h):
                    stack.append(("block", None))
                else:
                    stack.append(("block", None))
            head_start = i + 1
        elif c == "}":
            if stack:
                kind, val = stack.pop()
                if kind == "nsmark":
                    for _ in range(val):
                        stack.pop()
            head_start = i + 1
        elif c == ";":
            if at_decl_scope():
                record_head(text[head_start:i], False)
            head_start = i + 1
        elif c == ":" and at_decl_scope() and re.search(r"\b(public|private|protected)\s*$", text[head_start:i]):
            head_start = i + 1
        i += 1
    # `nsmark` entries are bookkeeping only
    return [([p for p in sc if not isinstance(p, int)], kind, name) for sc, kind, name in found]


def headers_under(*dirs):
    for d in dirs:
        if os.path.isfile(d):
            yield d
            continue
        for base, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith(".h") and "detail" not in base.split(os.sep):
                    yield os.path.join(base, f)


def collect_areas():
    areas = {}

    def add(area, qualified):
        areas.setdefault(area, set()).add(qualified)

    # ATen's functions: every header Functions.h includes from ATen/ops.
    functions_h = open(os.path.join(INC, "ATen/Functions.h")).read()
    for op in re.findall(r"#include <ATen/ops/(\w+)\.h>", functions_h):
        path = os.path.join(INC, "ATen/ops", op + ".h")
        for sc, kind, name in declarations(path):
            if kind == "function" and sc == ["at"]:
                if name.endswith("_out") or name.endswith("_outf"):
                    add("ATen functions: out= forms", "at::" + name)
                elif re.match(r"(linalg|fft|special)_", name):
                    add("ATen functions: linalg, fft, special", "at::" + name)
                else:
                    add("ATen functions", "at::" + name)
    # Tensor's methods, its own and TensorBase's.
    for header, cls in (("ATen/core/TensorBody.h", "Tensor"), ("ATen/core/TensorBase.h", "TensorBase")):
        for sc, kind, name in declarations(os.path.join(INC, header)):
            if kind == "function" and sc and sc[-1] == cls and name not in (cls, "~" + cls):
                add("Tensor methods", "at::Tensor::" + name)
    # torch::nn, torch::optim, torch::data, serialization.
    def namespaced(area, dirs, keep):
        for path in headers_under(*dirs):
            for sc, kind, name in declarations(path):
                if "detail" in sc or not sc or sc[0] != "torch" or any(p == "<anon>" for p in sc):
                    continue
                if any(p[:1].isupper() for p in sc):  # a class's member
                    continue
                q = "::".join(sc + [name])
                a = keep(sc, kind, name)
                if a:
                    add(a if isinstance(a, str) else area, q)
    nn = os.path.join(API, "nn")
    namespaced("torch::nn modules", [os.path.join(nn, "modules")],
               lambda sc, k, n: k == "module" and sc == ["torch", "nn"])
    namespaced("torch::nn options", [os.path.join(nn, "options")],
               lambda sc, k, n: k == "type" and n.endswith("Options") and sc[:2] == ["torch", "nn"])
    namespaced("torch::nn::functional", [os.path.join(nn, "functional")],
               lambda sc, k, n: k == "function" and sc == ["torch", "nn", "functional"])
    namespaced("torch::nn::init and utils", [os.path.join(nn, "init.h"), os.path.join(nn, "utils")],
               lambda sc, k, n: k in ("function", "type") and sc[:2] == ["torch", "nn"])
    namespaced("torch::optim", [os.path.join(API, "optim")],
               lambda sc, k, n: k in ("type", "function") and sc[:2] == ["torch", "optim"]
               and not n.startswith("Optimizer") or n in ("Optimizer", "OptimizerOptions", "OptimizerParamGroup",
                                                          "OptimizerParamState"))
    namespaced("torch::data", [os.path.join(API, "data")],
               lambda sc, k, n: k in ("type", "function") and sc[:2] == ["torch", "data"])
    namespaced("torch::serialize, save and load", [os.path.join(API, "serialize"), os.path.join(API, "serialize.h")],
               lambda sc, k, n: k in ("type", "function") and sc[0] == "torch")
    # Functionalization's copies of view ops (`transpose_copy` beside `transpose`) are internal.
    for area, names in areas.items():
        areas[area] = {q for q in names if not (q.endswith("_copy") and q[:-5] in names)
                       and not (re.search(r"_copy_outf?$", q) and re.sub(r"_copy_outf?$", "", q) in
                                areas.get("ATen functions", set()))}
    return areas


def probe_line(index, qualified):
    if qualified.startswith("at::Tensor::"):
        return f"struct p{index} : at::Tensor {{ using at::Tensor::{qualified.split('::')[-1]}; }};"
    scope, _, name = qualified.rpartition("::")
    return f"namespace p{index} {{ using {scope}::{name}; }}"


def probe(names, tmpdir, label):
    """The subset of `names` that Ember's compat headers provide."""
    names = sorted(names)
    src = os.path.join(tmpdir, re.sub(r"\W+", "_", label) + ".cpp")
    first = 3
    with open(src, "w") as f:
        f.write("#include <torch/torch.h>\n// one using-declaration per name: an error on line L is name L-3\n")
        for i, q in enumerate(names):
            f.write(probe_line(i, q) + "\n")
    cmd = [CXX, "-std=c++20", "-fsyntax-only", "-fmax-errors=0", "-w",
           "-I" + os.path.join(ROOT, "include/compat"), "-I" + ROOT, "-I" + os.path.join(ROOT, "include"), src]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0 and f"{os.path.basename(src)}:" not in res.stderr:
        sys.exit("api_coverage: the probe did not compile for another reason:\n" + res.stderr[-3000:])
    bad = set()
    for m in re.finditer(re.escape(src) + r":(\d+):\d+: error", res.stderr):
        bad.add(int(m.group(1)) - first)
    if any(not 0 <= b < len(names) for b in bad):
        sys.exit("api_coverage: errors outside the probe lines:\n" + res.stderr[-3000:])
    return {q for i, q in enumerate(names) if i not in bad}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true", help="update docs/COMPAT.md and docs/API_COVERAGE.md")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(INC, "ATen/Functions.h")):
        sys.exit(f"api_coverage: no libtorch headers under {INC} (apt-get install libtorch-dev)")
    areas = collect_areas()
    rows, missing, excluded = [], {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for area in sorted(areas):
            kept = set()
            for q in areas[area]:
                why = excluded_because(q.split("::")[-1])
                if why:
                    excluded.setdefault(why, set()).add(q)
                else:
                    kept.add(q)
            have = probe(kept, tmp, area)
            rows.append((area, len(have), len(kept)))
            missing[area] = sorted(kept - have)
    total_have = sum(r[1] for r in rows)
    total = sum(r[2] for r in rows)
    table = ["| area (libtorch 1.13 headers) | provided | names | % |", "|---|---:|---:|---:|"]
    for area, have, n in rows:
        table.append(f"| {area} | {have} | {n} | {100 * have / max(n, 1):.0f} |")
    table.append(f"| **all** | **{total_have}** | **{total}** | **{100 * total_have / max(total, 1):.0f}** |")
    print("\n".join(table))
    print("left out: " + "; ".join(f"{why}: {len(v)}" for why, v in sorted(excluded.items())))
    if not args.write:
        return
    detail = ["# libtorch's API by name: what Ember::torch_compat lacks",
              "",
              "Generated by `python3 scripts/api_coverage.py --write` from libtorch 1.13's headers (Debian's",
              "libtorch-dev); the table is in COMPAT.md. A name counts as provided when a using-declaration of it",
              "compiles against Ember's compat headers; overloads and defaults are the compat programs' concern.",
              ""]
    for area in sorted(missing):
        detail += [f"## {area}: {len(missing[area])} missing", "",
                   ", ".join(f"`{q.split('::', 1)[1] if q.startswith('at::') else q}`" for q in missing[area]) or "none",
                   ""]
    detail += ["## Left out, with the reason", ""]
    for why, names in sorted(excluded.items()):
        detail += [f"### {why}: {len(names)} names", "", ARGUMENTS.get(why, ""), ""]
        if len(names) <= LIST_GROUPS_UP_TO:
            detail += [", ".join(f"`{q.split('::', 1)[1] if q.startswith('at::') else q}`" for q in sorted(names)), ""]
    with open(os.path.join(ROOT, "docs/API_COVERAGE.md"), "w") as f:
        f.write("\n".join(detail) + "\n")
    compat = os.path.join(ROOT, "docs/COMPAT.md")
    text = open(compat).read()
    begin, end = "<!-- api_coverage begin -->", "<!-- api_coverage end -->"
    block = begin + "\n" + "\n".join(table) + "\n" + end
    if begin in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    else:
        text += "\n## libtorch's API by name\n\n" + block + "\n"
    with open(compat, "w") as f:
        f.write(text)
    print("wrote docs/COMPAT.md's table and docs/API_COVERAGE.md")


if __name__ == "__main__":
    main()
