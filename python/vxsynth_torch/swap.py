"""Swapped execution (paper §3.4): route selected PyTorch operator calls to a compiled CUDA candidate.

`OpSwap(targets, log_path)` replaces the Python entry points torch.matmul, torch.bmm,
torch.nn.functional.linear, .conv1d and .conv2d with wrappers. A wrapper compares the call with every
target of that op (exact tensor shapes, or the target's `match` predicate, e.g. swap_view.SpecMatcher's
operator view); on a match it calls `target.proxy.forward(*args, **kwargs)`, otherwise the saved
original. Every call is logged as one JSON line {"seq", "step", "op", "shapes", "dtypes", "device",
"routed", "target", "near_miss"} so a check can prove the candidate ran (`step` is the caller's
`OpSwap.step`, e.g. the workload step; `near_miss` says why a call with the profiled shape was not
routed). Leaving the context (normally or by exception) always restores the originals.

Scope: calls that look the function up through its module at call time (torch.matmul(...), F.linear(...),
nn.Linear/nn.Conv1d/nn.Conv2d modules, nn.MultiheadAttention's projections) are seen; the `@` operator
and functions bound earlier with `from torch import matmul` are not.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F

#: Swappable operators: name -> (module holding the entry point, attribute). One row per operator.
SWAPPABLE: Dict[str, Tuple[Any, str]] = {
    "matmul": (torch, "matmul"),
    "bmm": (torch, "bmm"),
    "linear": (F, "linear"),
    "conv1d": (F, "conv1d"),
    "conv2d": (F, "conv2d"),
}

Shapes = Tuple[Tuple[int, ...], ...]


@dataclass
class SwapTarget:
    """Route `op` calls whose leading tensor arguments have exactly `shapes` (e.g. linear:
    ((302, 1, 512), (3200, 512), (3200,)) = input, weight, bias) to `proxy.forward`. Optional `dtype`
    (e.g. torch.float32) must also match when given. `name` labels the target in the log. With `match`
    (a callable (op, args, kwargs) -> (matched, near_miss_reason), e.g. swap_view.SpecMatcher) the
    target decides by it instead of `shapes`/`dtype`, and `ops` lists the entry points it listens to."""
    op: str
    shapes: Shapes
    proxy: Any
    dtype: Optional[torch.dtype] = None
    name: str = ""
    match: Optional[Callable[..., Tuple[bool, str]]] = None
    ops: Tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.op not in SWAPPABLE:
            raise ValueError(f"SwapTarget.op '{self.op}' is not swappable; choose one of {', '.join(SWAPPABLE)}")
        if not callable(getattr(self.proxy, "forward", None)):
            raise TypeError(f"SwapTarget '{self.name or self.op}': proxy has no callable .forward")
        self.shapes = tuple(tuple(int(d) for d in s) for s in self.shapes)
        self.ops = tuple(self.ops) or (self.op,)
        unknown = [o for o in self.ops if o not in SWAPPABLE]
        if unknown:
            raise ValueError(f"SwapTarget.ops {unknown} are not swappable; choose from {', '.join(SWAPPABLE)}")
        if not self.name:
            self.name = f"{self.op}{list(map(list, self.shapes))}"


def call_signature(args: Sequence[Any]) -> Tuple[Shapes, List[str], str]:
    """Shapes and dtypes of the tensor positional arguments (None bias is skipped), and their device."""
    ts = [a for a in args if isinstance(a, torch.Tensor)]
    return (tuple(tuple(t.shape) for t in ts), [str(t.dtype).replace("torch.", "") for t in ts],
            str(ts[0].device) if ts else "")


class OpSwap:
    """Context manager installing the wrappers; `records` holds every dispatch decision in memory and,
    with `log_path`, each is appended to that JSONL file as it happens."""

    def __init__(self, targets: Sequence[SwapTarget], log_path: Optional[str] = None) -> None:
        self.targets = list(targets)
        self.log_path = log_path
        self.records: List[Dict[str, Any]] = []
        self._saved: Dict[str, Callable] = {}
        self._log = None
        self._seq = 0
        self._busy = threading.local()
        self.step: Optional[int] = None  # stamped on every record (the caller's step number)

    # -- dispatch
    def _match(self, op: str, shapes: Shapes, dtypes: List[str], args, kwargs) -> Tuple[Optional[SwapTarget], str]:
        near = ""
        for t in self.targets:
            if op not in t.ops:
                continue
            if t.match is not None:
                ok, why = t.match(op, args, kwargs)
                if ok:
                    return t, ""
                near = near or why
                continue
            if t.shapes != shapes:
                continue
            if t.dtype is not None and dtypes and dtypes[0] != str(t.dtype).replace("torch.", ""):
                continue
            return t, ""
        return None, near

    def _wrap(self, op: str, original: Callable) -> Callable:
        def wrapper(*args, **kwargs):
            if getattr(self._busy, "on", False):  # a proxy calling the op itself gets the original
                return original(*args, **kwargs)
            shapes, dtypes, device = call_signature(args)
            t, near = self._match(op, shapes, dtypes, args, kwargs)
            self._record(op, shapes, dtypes, device, t, near)
            if t is None:
                return original(*args, **kwargs)
            self._busy.on = True
            try:
                return t.proxy.forward(*args, **kwargs)
            finally:
                self._busy.on = False
        wrapper.__wrapped__ = original  # type: ignore[attr-defined]
        wrapper.__name__ = f"vxsynth_swapped_{op}"
        return wrapper

    def _record(self, op, shapes, dtypes, device, t: Optional[SwapTarget], near: str = "") -> None:
        self._seq += 1
        rec = {"seq": self._seq, "step": self.step, "op": op, "shapes": [list(s) for s in shapes],
               "dtypes": dtypes, "device": device, "routed": t is not None, "target": t.name if t else None,
               "near_miss": near or None}
        self.records.append(rec)
        if self._log is not None:
            self._log.write(json.dumps(rec) + "\n")

    # -- context
    def __enter__(self) -> "OpSwap":
        if self.log_path:
            self._log = open(self.log_path, "a", encoding="utf-8", buffering=1)
        for op in SWAPPABLE:  # wrap every entry point so the log shows every candidate call, routed or not
            mod, attr = SWAPPABLE[op]
            self._saved[op] = getattr(mod, attr)
            setattr(mod, attr, self._wrap(op, self._saved[op]))
        return self

    def __exit__(self, *exc) -> None:
        for op, orig in self._saved.items():
            mod, attr = SWAPPABLE[op]
            setattr(mod, attr, orig)
        self._saved.clear()
        if self._log is not None:
            self._log.close()
            self._log = None

    # -- summaries
    def routed(self) -> List[Dict[str, Any]]:
        return [r for r in self.records if r["routed"]]


def load_cuda_proxy(name: str, cuda_source: str, cpp_source: str, functions: Sequence[str], **kw):
    """Compile a CUDA candidate with torch.utils.cpp_extension.load_inline (needs nvcc and a CUDA torch)
    and return the extension module."""
    from torch.utils.cpp_extension import load_inline
    return load_inline(name=name, cpp_sources=[cpp_source], cuda_sources=[cuda_source],
                       functions=list(functions), **kw)
