"""The operator view of a PyTorch call and the matching rule of the in-workload swap (paper §3.4).

A profiled reference kernel is described by its operator (check's OpSpec: family, GEMM or convolution
shape, bias, batch strides; written by the C++ ncu backend into `swap_spec.json`). A call of
`F.linear`, `torch.matmul`, `torch.bmm`, `F.conv1d` or `F.conv2d` in the workload matches it when the
call's view has the same family, shape, bias, storage dtype and layout:
- linear(x, weight, bias): M = prod(x.shape[:-1]), K = x.shape[-1], N = weight.shape[0]
  (torch's `aten::linear` flattens the leading dimensions into the addmm's M, docs/ncu.md §8);
- matmul(a, b) with a 3-D or higher operand, and bmm(a, b): batch = prod of a's leading dimensions,
  a[M,K] per batch, b[K,N] per batch with batch stride K*N, or 0 when b is 2-D or all of b's leading
  dimensions are 1 (torch.matmul broadcasts it, check's OpSpec "bmm" layout); matmul of two 2-D
  tensors is family matmul, batch 1;
- conv1d/conv2d(x, weight, bias, stride, padding, dilation, groups): the convolution shape, with
  conv1d as conv2d of height 1 (h = r = 1, stride/pad/dilation of the height 1/0/1).
Layout: every operand contiguous (check's OpSpec layout, row-major as PyTorch stores them). A call with
the profiled shape but another dtype or layout is not routed; the view says which (a "near miss").
matmul/bmm operands with batch dimensions are the exception: they are flattened and made dense as
torch.matmul's own expand + reshape does (the expanded KV heads of grouped-query attention have a
head stride of 0), so such a call is routed with dense copies of its operands.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple

import torch

#: Storage dtype names of the spec (check's file dtypes: fp32 for the fp32/tf32 paths, bf16).
STORAGE = {"fp32": torch.float32, "bf16": torch.bfloat16}

#: Default arguments of the convolution entry points after (input, weight), in call order.
_CONV_DEFAULTS = (("bias", None), ("stride", 1), ("padding", 0), ("dilation", 1), ("groups", 1))


@dataclass(frozen=True)
class CallView:
    """What a call computes: family, its shape key (compared with the spec's), dtype, whether every
    tensor operand is contiguous, and the operand tensors in the candidate's argument order."""
    family: str
    key: Tuple
    dtype: torch.dtype
    contiguous: bool
    tensors: Tuple[Optional[torch.Tensor], ...]
    conv_args: Tuple[int, ...] = ()
    #: matmul/bmm: the shape of the call's result (torch.matmul's broadcast leading dimensions + [M, N]).
    out_shape: Tuple[int, ...] = ()


def _pair(v, n: int) -> Tuple[int, ...]:
    if isinstance(v, (tuple, list)):
        return tuple(int(x) for x in v)
    return (int(v),) * n


def _contig(ts: Sequence[Optional[torch.Tensor]]) -> bool:
    return all(t is None or t.is_contiguous() for t in ts)


def _linear_view(args, kwargs) -> Optional[CallView]:
    x, w = args[0], args[1]
    b = args[2] if len(args) > 2 else kwargs.get("bias")
    if not (isinstance(x, torch.Tensor) and isinstance(w, torch.Tensor)) or w.dim() != 2 or x.dim() < 1:
        return None
    m = math.prod(x.shape[:-1])
    key = ("linear", 1, m, int(w.shape[0]), int(x.shape[-1]), b is not None, -1, -1)
    return CallView("linear", key, x.dtype, _contig((x, w, b)), (x, w, b))


def _matmul_view(op: str, args, kwargs) -> Optional[CallView]:
    a, b = args[0], args[1] if len(args) > 1 else kwargs.get("other", kwargs.get("mat2"))
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.dim() < 2 or b.dim() < 2:
        return None
    m, k, n = int(a.shape[-2]), int(a.shape[-1]), int(b.shape[-1])
    if int(b.shape[-2]) != k:
        return None
    if a.dim() == 2 and b.dim() == 2 and op == "matmul":
        return CallView("matmul", ("matmul", 1, m, n, k, False, -1, -1), a.dtype, _contig((a, b)), (a, b))
    batch = math.prod(a.shape[:-2]) if a.dim() > 2 else math.prod(b.shape[:-2])
    b_batch = math.prod(b.shape[:-2]) if b.dim() > 2 else 1
    if b_batch not in (1, batch) or (a.dim() > 2 and math.prod(a.shape[:-2]) != batch):
        return None
    sb = 0 if (b_batch == 1 and batch > 1) else k * n
    key = ("bmm", batch, m, n, k, False, m * k, sb)
    lead = tuple(a.shape[:-2]) if a.dim() > 2 else tuple(b.shape[:-2])
    return CallView("bmm", key, a.dtype, True, _batched_operands(a, b, batch, b_batch, m, n, k),
                    out_shape=tuple(int(d) for d in lead) + (m, n))


def _batched_operands(a: torch.Tensor, b: torch.Tensor, batch: int, b_batch: int, m: int, n: int, k: int):
    """a as [batch, M, K] and b as [batch, K, N] (or one [K, N]), row-major and dense. torch.matmul
    flattens the leading dimensions the same way (expand + reshape); an operand whose batch is not
    dense (HF repeat_kv's expanded KV heads have a head stride of 0, a transposed view) is copied
    here, because the candidate reads dense row-major storage."""
    a3 = a.reshape(batch, m, k).contiguous()
    b3 = b.reshape(k, n).contiguous() if b_batch == 1 else b.reshape(batch, k, n).contiguous()
    return (a3, b3)


def _conv_view(op: str, args, kwargs) -> Optional[CallView]:
    x, w = args[0], args[1]
    rest = dict(_CONV_DEFAULTS)
    for (name, _), v in zip(_CONV_DEFAULTS, args[2:]):
        rest[name] = v
    rest.update({k: v for k, v in kwargs.items() if k in rest})
    if isinstance(rest["padding"], str):  # 'same'/'valid' are resolved by torch, not matched here
        return None
    nd = 1 if op == "conv1d" else 2
    if not (isinstance(x, torch.Tensor) and isinstance(w, torch.Tensor)) or x.dim() != nd + 2:
        return None
    st, pd, dl = _pair(rest["stride"], nd), _pair(rest["padding"], nd), _pair(rest["dilation"], nd)
    if nd == 1:  # conv1d as conv2d of height 1
        st, pd, dl = (1,) + st, (0,) + pd, (1,) + dl
        n, c, wd = (int(s) for s in x.shape)
        h, r, s = 1, 1, int(w.shape[-1])
    else:
        n, c, h, wd = (int(s) for s in x.shape)
        r, s = int(w.shape[-2]), int(w.shape[-1])
    b = rest["bias"]
    g = int(rest["groups"])
    conv = (n, c, h, wd, int(w.shape[0]), r, s) + st + pd + dl + (g,)
    key = (op,) + conv + (b is not None,)
    return CallView(op, key, x.dtype, _contig((x, w, b)), (x, w, b), conv)


def call_view(op: str, args: Sequence[Any], kwargs: Dict[str, Any]) -> Optional[CallView]:
    """The view of one call of the swappable entry point `op`, None when it is no GEMM/convolution the
    generator builds (e.g. a 1-D matmul operand)."""
    if len(args) < 2:
        return None
    if op == "linear":
        return _linear_view(args, kwargs)
    if op in ("matmul", "bmm"):
        return _matmul_view(op, args, kwargs)
    if op in ("conv1d", "conv2d"):
        return _conv_view(op, args, kwargs)
    return None


def spec_key(spec: Dict[str, Any]) -> Tuple:
    """The shape key of a `swap_spec.json` operator ("op" object: check's OpSpec fields)."""
    op = spec["op"]
    fam = op["family"]
    if fam in ("conv1d", "conv2d"):
        c = op["conv"]
        return (fam, c["n"], c["c"], c["h"], c["w"], c["k"], c["r"], c["s"], *c["stride"], *c["pad"],
                *c["dilation"], c["groups"], bool(op["has_bias"]))
    g = op["gemm"]
    return (fam, g["batch"], g["m"], g["n"], g["k"], bool(op["has_bias"]), op.get("a_batch_stride", -1),
            op.get("b_batch_stride", -1))


class SpecMatcher:
    """Match predicate of a SwapTarget built from a spec: `__call__(op, args, kwargs)` returns
    (matched, near_miss_reason). The entry points it listens to: linear for linear; matmul and bmm for
    matmul/bmm; conv1d/conv2d for themselves."""

    ENTRY_POINTS = {"linear": ("linear",), "matmul": ("matmul",), "bmm": ("matmul", "bmm"),
                    "conv1d": ("conv1d",), "conv2d": ("conv2d",)}

    def __init__(self, spec: Dict[str, Any]) -> None:
        self.family = spec["op"]["family"]
        if self.family not in self.ENTRY_POINTS:
            raise ValueError(f"swap spec: op family '{self.family}' has no swappable entry point")
        self.key = spec_key(spec)
        storage = spec["storage"]
        if storage not in STORAGE:
            raise ValueError(f"swap spec: storage '{storage}' is not one of {', '.join(STORAGE)}")
        self.dtype = STORAGE[storage]
        self.ops = self.ENTRY_POINTS[self.family]

    def _same_shape(self, v: CallView) -> bool:
        if v.key == self.key:
            return True
        # bmm keys: a_batch_stride / b_batch_stride of -1 in the spec mean "contiguous" (check's OpSpec).
        if v.family == "bmm" and self.family == "bmm" and v.key[:6] == self.key[:6]:
            sa, sb = self.key[6], self.key[7]
            m, n, k = self.key[2], self.key[3], self.key[4]
            return (sa in (-1, m * k) and v.key[6] == m * k) and (sb == v.key[7] or (sb == -1 and v.key[7] == k * n))
        return False

    def view(self, op: str, args, kwargs) -> Optional[CallView]:
        return call_view(op, args, kwargs) if op in self.ops else None

    def __call__(self, op: str, args, kwargs) -> Tuple[bool, str]:
        v = self.view(op, args, kwargs)
        if v is None or not self._same_shape(v):
            return False, ""
        if v.dtype != self.dtype:
            return False, f"profiled shape, dtype {str(v.dtype).replace('torch.', '')} (profiled {str(self.dtype).replace('torch.', '')})"
        if not v.contiguous:
            return False, "profiled shape, non-contiguous operand (the candidate reads contiguous row-major tensors)"
        return True, ""
