"""Hot-kernel ranking from a PyTorch profiler Chrome trace (docs: ncu-and-torch.md §6; paper §4.1).

A kernel event (cat "kernel") is tied to the innermost `cpu_op` whose "External id" equals the kernel's
"External id"; the top-level op is the outermost `cpu_op` containing it in time on the same (pid, tid).
Kernels are grouped by (name, grid, block): one group is one hot kernel, one reference benchmark.
GPU-time share = group's summed kernel `dur` / summed `dur` of all kernel events (memsets and copies are
not kernels and are left out of both).
"""
from __future__ import annotations

import gzip
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, asdict
from typing import Any, Dict, List, Optional, Tuple


class TraceError(ValueError):
    """A trace that cannot be ranked; the message names the file and what is missing."""


def load_trace(path: str) -> Dict[str, Any]:
    """Read a Chrome trace (.json or .json.gz). Raises TraceError naming the file on bad JSON."""
    opener = gzip.open if str(path).endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError, EOFError) as e:
        raise TraceError(f"{path}: not a readable Chrome trace: {e}") from None
    if isinstance(data, list):  # Chrome "JSON Array Format" (torch builds without Kineto write this)
        data = {"traceEvents": data}
    if not isinstance(data, dict) or "traceEvents" not in data:
        raise TraceError(f"{path}: no 'traceEvents' array (not a torch.profiler Chrome trace)")
    return data


_ANON = re.compile(r"\((anonymous namespace)\)")
_QUALIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*::")


def function_base_name(name: str) -> str:
    """ncu's `--kernel-name-base function` form of a demangled kernel name: no return type, no
    namespaces, no template arguments, no parameter list (ncu-and-torch.md §5.3).
    'void cudnn::engines_precompiled::nchwToNhwcKernel<float,...>(...)' -> 'nchwToNhwcKernel';
    'nvjet_sm90_tst_...' -> unchanged; 'void Kernel2<cutlass_...>(Params)' -> 'Kernel2'."""
    s = _ANON.sub("anon", name.strip())
    if s.startswith("void "):
        s = s[5:]
    depth, cut = 0, len(s)
    for i, ch in enumerate(s):  # parameter list starts at the first '(' outside template brackets
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0:
            cut = i
            break
    s = s[:cut]
    depth, out = 0, []
    for ch in s:  # drop template arguments
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    s = "".join(out).strip()
    return s.split("::")[-1].strip()


#: Identifier tokens ignored when comparing a torch (CUPTI) kernel name with ncu's: namespaces and
#: casts that ncu's kernel renaming drops or spells differently (ncu-and-torch.md §5.3), and C++ noise.
NAME_NOISE = frozenset({
    "void", "anon", "anonymous", "namespace", "unnamed", "lambda", "instance", "bool", "true", "false",
    "const", "unsigned", "signed", "char", "short", "int", "long", "ul", "u", "l", "std", "at", "native",
    "cuda", "detail", "c10", "engines_precompiled", "engines_runtime_compiled", "cudnnKernelDataType_t",
    "array", "T1", "T2", "T3", "T4", "T5", "T6",
})


def name_tokens(name: str) -> frozenset:
    """Identifier tokens of a demangled kernel name before its parameter list, minus NAME_NOISE."""
    s = _ANON.sub("anon", name.strip())
    depth, cut = 0, len(s)
    for i, ch in enumerate(s):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "(" and depth == 0 and i > 0:
            cut = i
            break
    # ncu's kernel renaming drops every namespace qualifier (seen on H200: torch's
    # at::native::binary_internal::MulFunctor<float> is MulFunctor<float> in ncu), so drop them too.
    head = _QUALIFIER.sub("", s[:cut])
    toks = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", head)
    return frozenset(t for t in toks if t not in NAME_NOISE)


def same_kernel(torch_name: str, ncu_name: str) -> bool:
    """True if an ncu 'Kernel Name' can be the same function as a torch trace kernel name: equal function
    base names and every (non-noise) template token of the torch name present in the ncu name. This
    separates e.g. vectorized_elementwise_kernel<4, CUDAFunctor_add<float>> from <..., MulFunctor<float>>."""
    if function_base_name(torch_name) != function_base_name(ncu_name):
        return False
    return name_tokens(torch_name) <= name_tokens(ncu_name)


def launch_index(data: Dict[str, Any], name: str, grid: List[int], block: List[int]) -> Tuple[int, int]:
    """(index, count): position of the first launch of kernel (name, grid, block) among the trace's
    launches with the same function base name (launch order = correlation id), and how many such
    launches the trace holds. Used as ncu --launch-skip with a `^base$` filter."""
    base = function_base_name(name)
    ks = [e for e in data["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel"
          and function_base_name(e.get("name", "")) == base]
    ks.sort(key=lambda e: (e.get("args") or {}).get("correlation", 0))
    idx = -1
    for i, e in enumerate(ks):
        a = e.get("args") or {}
        if e.get("name") == name and list(a.get("grid", [])) == list(grid) and list(a.get("block", [])) == list(block):
            idx = i
            break
    return idx, len(ks)


@dataclass
class HotKernel:
    """One ranked kernel group. Times in microseconds; shares in [0, 1]."""
    rank: int
    name: str
    base_name: str
    grid: List[int]
    block: List[int]
    launches: int
    total_us: float
    mean_us: float
    share: float
    cumulative_share: float
    op: str                       # innermost cpu_op (aten::addmm, aten::cudnn_convolution, ...)
    top_op: str                   # outermost cpu_op (aten::linear, aten::conv2d, ...)
    input_dims: List[Any] = field(default_factory=list)
    input_types: List[Any] = field(default_factory=list)
    top_input_dims: List[Any] = field(default_factory=list)
    registers_per_thread: Optional[int] = None
    shared_memory: Optional[int] = None
    #: every (innermost op, input dims) behind the group with its launch count, most common first: one
    #: kernel (name, grid, block) can serve several shapes (seen on H200: ACT's sgemm_largek_lds64 ran
    #: both (100,512)x(512,512) and (100,3200)x(3200,512) with one grid)
    op_shapes: List[Dict[str, Any]] = field(default_factory=list)


def _cpu_op_index(events: List[dict]):
    """External id -> innermost cpu_op, and cpu_op id -> outermost enclosing cpu_op (same pid/tid)."""
    ops = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    by_ext: Dict[int, dict] = {}
    top_of: Dict[int, dict] = {}
    per_thread: Dict[Tuple[Any, Any], List[dict]] = defaultdict(list)
    for e in ops:
        per_thread[(e.get("pid"), e.get("tid"))].append(e)
    for lst in per_thread.values():
        lst.sort(key=lambda e: (float(e["ts"]), -float(e.get("dur", 0))))
        stack: List[dict] = []
        for e in lst:
            ts = float(e["ts"])
            while stack and float(stack[-1]["ts"]) + float(stack[-1].get("dur", 0)) < ts:
                stack.pop()
            top_of[id(e)] = stack[0] if stack else e
            stack.append(e)
            ext = (e.get("args") or {}).get("External id")
            if ext is not None:
                prev = by_ext.get(ext)
                # innermost = latest-starting op with that id
                if prev is None or float(prev["ts"]) <= ts:
                    by_ext[ext] = e
    return by_ext, top_of


def _annotation_windows(events: List[dict], range_name: str) -> List[Tuple[float, float]]:
    wins = [(float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))) for e in events
            if e.get("ph") == "X" and e.get("cat") == "user_annotation" and e.get("name") == range_name]
    wins.sort()
    return wins[1:] if len(wins) > 1 else wins  # first instance is warm-up when the range repeats


def kernel_events(data: Dict[str, Any], path: str = "<trace>", range_name: Optional[str] = None) -> List[dict]:
    """Kernel events of the trace, optionally only those launched inside `range_name` (a
    record_function / user_annotation range; all instances but the first). Raises TraceError if none."""
    events = data["traceEvents"]
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
    if not kernels:
        raise TraceError(f"{path}: no CUDA kernel events (cat 'kernel'); was the trace recorded with "
                         "ProfilerActivity.CUDA on a GPU?")
    if range_name is not None:
        wins = _annotation_windows(events, range_name)
        if not wins:
            raise TraceError(f"{path}: no user_annotation range named '{range_name}'")
        launch_ts = {(e.get("args") or {}).get("correlation"): float(e["ts"]) for e in events
                     if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver")}
        def inside(k: dict) -> bool:
            t = launch_ts.get((k.get("args") or {}).get("correlation"))
            return t is not None and any(a <= t <= b for a, b in wins)
        kernels = [k for k in kernels if inside(k)]
        if not kernels:
            raise TraceError(f"{path}: no kernel was launched inside range '{range_name}'")
    return kernels


def rank_hot_kernels(data: Dict[str, Any], top_k: int = 5, path: str = "<trace>",
                     range_name: Optional[str] = None) -> Dict[str, Any]:
    """Rank kernel groups by total GPU time. Returns {'total_kernel_us', 'kernel_launches',
    'distinct_kernels', 'hot': [HotKernel as dict, ...top_k], 'coverage': cumulative share of top_k}."""
    if top_k < 1:
        raise ValueError("top_k must be >= 1")
    kernels = kernel_events(data, path, range_name)
    by_ext, top_of = _cpu_op_index(data["traceEvents"])
    groups: Dict[Tuple[str, Tuple[int, ...], Tuple[int, ...]], List[dict]] = defaultdict(list)
    for k in kernels:
        a = k.get("args") or {}
        groups[(k["name"], tuple(a.get("grid", [])), tuple(a.get("block", [])))].append(k)
    total = sum(float(k.get("dur", 0)) for k in kernels)
    if total <= 0:
        raise TraceError(f"{path}: kernel events have zero total duration")
    ranked = sorted(groups.items(), key=lambda kv: -sum(float(k.get("dur", 0)) for k in kv[1]))
    hot: List[HotKernel] = []
    cum = 0.0
    for i, ((name, grid, block), ks) in enumerate(ranked[:top_k]):
        t = sum(float(k.get("dur", 0)) for k in ks)
        cum += t / total
        ops = Counter()
        rep: Dict[str, Tuple[dict, dict]] = {}
        for k in ks:
            op = by_ext.get((k.get("args") or {}).get("External id"))
            if op is None:
                continue
            top = top_of.get(id(op), op)
            a = op.get("args") or {}
            key = json.dumps([op["name"], top["name"], a.get("Input Dims")])
            ops[key] += 1
            rep.setdefault(key, (op, top))
        a0 = ks[0].get("args") or {}
        hk = HotKernel(rank=i + 1, name=name, base_name=function_base_name(name), grid=list(grid),
                       block=list(block), launches=len(ks), total_us=round(t, 3), mean_us=round(t / len(ks), 3),
                       share=round(t / total, 6), cumulative_share=round(cum, 6), op="", top_op="",
                       registers_per_thread=a0.get("registers per thread"), shared_memory=a0.get("shared memory"))
        if ops:
            op, top = rep[ops.most_common(1)[0][0]]
            hk.op, hk.top_op = op["name"], top["name"]
            hk.input_dims = (op.get("args") or {}).get("Input Dims", [])
            hk.input_types = (op.get("args") or {}).get("Input type", [])
            hk.top_input_dims = (top.get("args") or {}).get("Input Dims", [])
            for key, cnt in ops.most_common():
                o, t, dims = json.loads(key)
                hk.op_shapes.append({"op": o, "top_op": t, "input_dims": dims, "launches": cnt})
        hot.append(hk)
    return {"total_kernel_us": round(total, 3), "kernel_launches": len(kernels), "distinct_kernels": len(groups),
            "coverage": round(cum, 6), "hot": [asdict(h) for h in hot]}
