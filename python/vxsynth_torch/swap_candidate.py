"""A compiled candidate as a swap proxy: a shared library with codegen's C ABI, loaded with ctypes.

The library exports `vxs_workspace_bytes(<shape>)` and `vxs_launch(<operands>, out, workspace,
<shape>, stream)` with the per-family parameter lists of codegen's `cuda_c_api_declarations`
(codegen/include/vxsynth/codegen/emit.h): device pointers, int shape arguments (long long batch
strides for bmm), a cudaStream_t; the launch returns a cudaError_t value (0 = success). The CUDA
candidate is built with `nvcc -shared -Xcompiler -fPIC candidate.cu -o candidate.so` (no torch headers:
a 2-5 s build instead of the ~60 s of a torch extension, measured with swap_demo on the H200,
docs/gpu-data.md); a CPU library with the same ABI (host pointers, stream ignored) stands in for it
where there is no GPU (python/tests/cpu_candidate/).

`CandidateProxy(lib, spec, device).forward(*args)` has the swapped entry point's contract: it takes
the call's tensors (contiguous, the profiled shape: swap_view.SpecMatcher decided), NaN-poisons a new
output, calls vxs_launch on the current stream and returns the output shaped as the original op's.
"""
from __future__ import annotations

import ctypes
import math
from typing import Any, Dict, List, Optional, Sequence

import torch

from .swap_view import STORAGE, CallView, call_view

_P, _I, _LL = ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong

#: Per family: (operand pointers before out, shape parameter types). Order as codegen's C ABI.
_ABI = {
    "linear": (3, (_I, _I, _I)),
    "matmul": (2, (_I, _I, _I, _I, _LL, _LL)),
    "bmm": (2, (_I, _I, _I, _I, _LL, _LL)),
    "conv1d": (3, (_I,) * 14),
    "conv2d": (3, (_I,) * 14),
}


class CandidateError(RuntimeError):
    """The candidate's launch returned an error (the value is a cudaError_t)."""


class CandidateLibrary:
    """ctypes binding of one candidate library for one op family."""

    def __init__(self, path: str, family: str) -> None:
        if family not in _ABI:
            raise ValueError(f"candidate library: family '{family}' has no C ABI (known: {', '.join(_ABI)})")
        self.path = path
        self.family = family
        self.lib = ctypes.CDLL(path)
        n_ptr, shape_t = _ABI[family]
        self.lib.vxs_workspace_bytes.argtypes = list(shape_t)
        self.lib.vxs_workspace_bytes.restype = ctypes.c_size_t
        self.lib.vxs_launch.argtypes = [_P] * (n_ptr + 2) + list(shape_t) + [_P]
        self.lib.vxs_launch.restype = _I
        self.n_ptr = n_ptr

    def workspace_bytes(self, shape: Sequence[int]) -> int:
        return int(self.lib.vxs_workspace_bytes(*shape))

    def launch(self, ptrs: Sequence[Optional[int]], out: int, ws: Optional[int], shape: Sequence[int],
               stream: Optional[int]) -> int:
        return int(self.lib.vxs_launch(*ptrs, out, ws, *shape, stream))


def shape_args(spec: Dict[str, Any]) -> List[int]:
    """The C ABI's shape arguments of the spec's operator (codegen/src/harness.cc shape_args)."""
    op = spec["op"]
    if op["family"] in ("conv1d", "conv2d"):
        c = op["conv"]
        return [c["n"], c["c"], c["h"], c["w"], c["k"], c["r"], c["s"], *c["stride"], *c["pad"], *c["dilation"],
                c["groups"]]
    g = op["gemm"]
    if op["family"] == "linear":
        return [g["m"], g["n"], g["k"]]
    m, n, k = g["m"], g["n"], g["k"]
    sa = op.get("a_batch_stride", -1)
    sb = op.get("b_batch_stride", -1)
    return [g["batch"], m, n, k, m * k if sa < 0 else sa, k * n if sb < 0 else sb]


def output_shape(view: CallView, family: str) -> List[int]:
    """Shape of the original op's result for this call (torch semantics)."""
    t = view.tensors
    if family == "linear":
        return list(t[0].shape[:-1]) + [int(t[1].shape[0])]
    if view.out_shape:
        return list(view.out_shape)
    if family in ("matmul", "bmm"):
        a, b = t[0], t[1]
        lead = list(a.shape[:-2]) if a.dim() > 2 else list(b.shape[:-2])
        return lead + [int(a.shape[-2]), int(b.shape[-1])]
    n, c, h, w, k, r, s, sh, sw, ph, pw, dh, dw, g = view.conv_args
    q = (w + 2 * pw - dw * (s - 1) - 1) // sw + 1
    if family == "conv1d":
        return [n, k, q]
    p = (h + 2 * ph - dh * (r - 1) - 1) // sh + 1
    return [n, k, p, q]


class CandidateProxy:
    """proxy.forward(*args, **kwargs) for OpSwap: computes the call with the candidate library. Counts
    launches (`launches`, `failures`); raises CandidateError when vxs_launch returns non-zero."""

    def __init__(self, lib: CandidateLibrary, spec: Dict[str, Any]) -> None:
        self.lib = lib
        self.spec = spec
        self.family = spec["op"]["family"]
        self.dtype = STORAGE[spec["storage"]]
        self.shape = shape_args(spec)
        self.ws_bytes = lib.workspace_bytes(self.shape)
        self.launches = 0
        self.failures = 0
        self._ws: Dict[str, torch.Tensor] = {}

    def _workspace(self, device: torch.device) -> Optional[int]:
        if self.ws_bytes == 0:
            return None
        key = str(device)
        if key not in self._ws:
            self._ws[key] = torch.empty(self.ws_bytes // 4 + 1, dtype=torch.float32, device=device)
        return self._ws[key].data_ptr()

    def run(self, tensors: Sequence[Optional[torch.Tensor]], out_shape: Sequence[int]) -> torch.Tensor:
        """One vxs_launch on `tensors` (candidate argument order; None = no bias) into a NaN-poisoned
        output of `out_shape`."""
        x = tensors[0]
        out = torch.full(list(out_shape), float("nan"), dtype=self.dtype, device=x.device)
        ptrs = [t.data_ptr() if t is not None else None for t in tensors[:self.lib.n_ptr]]
        ptrs += [None] * (self.lib.n_ptr - len(ptrs))
        stream = torch.cuda.current_stream(x.device).cuda_stream if x.is_cuda else None
        err = self.lib.launch(ptrs, out.data_ptr(), self._workspace(x.device), self.shape, stream)
        self.launches += 1
        if err != 0:
            self.failures += 1
            raise CandidateError(f"vxs_launch returned {err} ({self.lib.path})")
        return out

    def forward(self, *args, **kwargs):
        op = "linear" if self.family == "linear" else ("matmul" if self.family in ("matmul", "bmm") else self.family)
        v = call_view(op, args, kwargs)
        if v is None:
            raise CandidateError(f"candidate proxy: a {self.family} call it cannot view was routed to it")
        return self.run(v.tensors, output_shape(v, self.family))


def nan_count(t: torch.Tensor) -> int:
    return int(torch.isnan(t).sum()) if t.is_floating_point() else 0


def numel(shape: Sequence[int]) -> int:
    return int(math.prod(shape))
