"""Hot-kernel ranking from a PyTorch profiler Chrome trace (paper §4.1; docs/signature.md "Hot kernels").

The ranking and the kernel base names are the C++ side's (`vxsynth hot --json`, `vxsynth kernel-name
--json`, read through `rules`): a kernel event is tied to its cpu_ops by "External id" and time
containment, and kernels are grouped by name, grid, block and op signature (the whole op: shape,
stride, padding, dilation, groups, dtype, layout, bias); one group is one hot kernel, one reference
benchmark. GPU-time share = the group's summed kernel time / that of all kernel events (memsets and
copies are not kernels); communication kernels (NCCL) are counted in the total but not ranked.
This module adds what only the profiling driver needs: the NVTX-range filter and the match of ncu
rows to torch kernel names.
"""
from __future__ import annotations

import gzip
import json
import os
import re
import tempfile
from typing import Any, Dict, List, Optional, Tuple

from . import rules


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
    """ncu's `--kernel-name-base function` form of a kernel name, from the C++ kernel-name rules
    (`vxsynth kernel-name`): 'void cudnn::engines_precompiled::nchwToNhwcKernel<float,...>(...)' ->
    'nchwToNhwcKernel'; 'void ns::Tile<128>::run(float*)' -> 'run'; 'nvjet_sm90_tst_...' -> unchanged."""
    return rules.base_names([name])[0]


#: Identifier tokens ignored when comparing a torch (CUPTI) kernel name with ncu's: namespaces and
#: casts that ncu's kernel renaming drops or spells differently (docs/ncu.md §5.3), and C++ noise.
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


def _ranked_file(data: Dict[str, Any], path: str, kernels: List[dict]) -> Tuple[str, Optional[str]]:
    """A trace file holding `data` with only `kernels` as kernel events: `path` itself when that is the
    file and nothing was filtered, else a temporary copy (returned second, for removal)."""
    every = [e for e in data["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel"]
    if os.path.isfile(path) and len(every) == len(kernels):
        return path, None
    keep = {id(k) for k in kernels}
    events = [e for e in data["traceEvents"] if not (e.get("ph") == "X" and e.get("cat") == "kernel") or id(e) in keep]
    fd, tmp = tempfile.mkstemp(suffix=".json", prefix="vxsynth-trace-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({**{k: v for k, v in data.items() if k != "traceEvents"}, "traceEvents": events}, f)
    return tmp, tmp


def _hot_kernel(h: Dict[str, Any]) -> Dict[str, Any]:
    """One ranked group of `vxsynth hot --json` in the driver's hot_kernels.json form."""
    stack = h["op_stack"]
    inner, top = (stack[-1], stack[0]) if stack else ({}, {})
    out = {k: h[k] for k in ("rank", "id", "name", "base_name", "grid", "block", "launches", "share",
                             "cumulative_share", "key", "registers_per_thread", "base_launch_index",
                             "base_launches", "context")}
    out.update(total_us=round(h["total_us"], 3), mean_us=round(h["mean_us"], 3), share=round(h["share"], 6),
               cumulative_share=round(h["cumulative_share"], 6), shared_memory=h["shared_memory"],
               op=inner.get("name", ""), top_op=top.get("name", ""), input_dims=inner.get("input_dims", []),
               input_types=inner.get("input_types", []), top_input_dims=top.get("input_dims", []),
               op_stack=[o["name"] for o in stack])
    out["op_shapes"] = [{"op": out["op"], "top_op": out["top_op"], "input_dims": out["input_dims"],
                         "launches": h["launches"]}] if stack else []
    return out


def rank_hot_kernels(data: Dict[str, Any], top_k: int = 5, path: str = "<trace>",
                     range_name: Optional[str] = None) -> Dict[str, Any]:
    """Rank kernel groups by total GPU time with the C++ rule (`vxsynth hot --json`), optionally only the
    kernels launched inside `range_name`. Returns {'total_kernel_us', 'kernel_launches', 'distinct_kernels',
    'communication', 'coverage', 'hot': [top_k groups]}. Raises TraceError when the trace has no kernels
    (or none in the range) or the C++ side refuses it (e.g. recorded without record_shapes), and
    rules.RulesError when there is no usable `vxsynth` executable."""
    if top_k < 1:
        raise ValueError("top_k must be >= 1")
    kernels = kernel_events(data, path, range_name)
    file, tmp = _ranked_file(data, path, kernels)
    try:
        r = rules.hot(file, top_k)
    except rules.RulesError as e:
        if e.returncode == 2:  # vxsynth read the trace and refused it: a trace error, with its reason
            raise TraceError(str(e).split(": error: ", 1)[-1]) from None
        raise
    finally:
        if tmp:
            os.remove(tmp)
    if r["total_kernel_us"] <= 0:
        raise TraceError(f"{path}: kernel events have zero total duration")
    return {"total_kernel_us": round(r["total_kernel_us"], 3), "kernel_launches": r["kernel_launches"],
            "distinct_kernels": r["distinct_kernels"], "communication": r["communication"],
            "coverage": round(r["coverage"], 6), "hot": [_hot_kernel(h) for h in r["hot"]]}
