"""Trace fixtures of a temporal-convolution (TCN-like) model for the hot-kernel grouping tests.

usage: python -m vxsynth_torch.tcn_fixture --out DIR
Writes DIR/tcn.trace.json.gz (op arguments recorded, as torch.profiler's record_shapes=True writes them)
and DIR/tcn_no_shapes.trace.json.gz (the same run without op arguments, as record_shapes=False writes it).

The model is one multi-scale dilated block: three Conv1d(16, 16, k=3, bias) branches with dilation 2, 4
and 8 on the same input (1, 16, 64), run twice. The three convolutions differ only in dilation, so a
grouping that ignores the op's hyper-parameters merges them; each appears twice, so a correct grouping
gives three hot kernels of two launches each.

The events are those of the Kineto Chrome trace (docs/signature.md, "Torch-trace importer"): `cpu_op`
events with "Input Dims", "Input type", "Input Strides", "Concrete Inputs" and "External id", nested by
time on one thread. Debian's CPU torch 1.13 exports no op arguments at all, so the op calls and their
arguments are recorded here at the ATen dispatcher (TorchDispatchMode) during a real CPU run, under the
user-facing aten::conv1d op. There is no GPU here: each convolution gets one `kernel` event carrying the
convolution op's External id, with the conv1d kernel name and launch geometry measured on the H200
(tests/data/h200/conv1d_fp32_tf32), so that the trace has the shape of a CUDA trace.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from typing import Any, Dict, List

DILATIONS = (2, 4, 8)
CHANNELS, LENGTH, KERNEL = 16, 64, 3
#: conv1d implicit-GEMM kernel and its launch geometry as the H200 conv1d capture records them
KERNEL_NAME = ("sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x32_warpgroupsize1x1x1_"
               "g1_execute_segment_k_off_kernel__5x_cudnn")
GRID, BLOCK = [32, 2, 1], [384, 1, 1]


def _arg(v: Any) -> Dict[str, Any]:
    """One argument as record_shapes writes it: a tensor by dims/type/strides, anything else by value."""
    import torch
    if isinstance(v, torch.Tensor):
        names = {torch.float32: "float", torch.float16: "c10::Half", torch.bfloat16: "c10::BFloat16",
                 torch.float64: "double"}
        return {"dims": list(v.shape), "type": names.get(v.dtype, str(v.dtype)), "strides": list(v.stride()),
                "concrete": ""}
    if v is None:
        return {"dims": [], "type": "", "strides": [], "concrete": ""}
    if isinstance(v, (list, tuple)):
        return {"dims": [], "type": "ScalarList", "strides": [], "concrete": "[" + ", ".join(str(x) for x in v) + "]"}
    return {"dims": [], "type": "Scalar", "strides": [], "concrete": str(v)}


def _op_event(name: str, args: List[Dict[str, Any]], ts: float, dur: float, ext: int, shapes: bool) -> Dict[str, Any]:
    a: Dict[str, Any] = {"External id": ext}
    if shapes:
        a.update({"Input Dims": [x["dims"] for x in args], "Input type": [x["type"] for x in args],
                  "Input Strides": [x["strides"] for x in args], "Concrete Inputs": [x["concrete"] for x in args]})
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": a}


def record(shapes: bool) -> Dict[str, Any]:
    """Run the model on the CPU and return the trace (object form)."""
    import torch
    import torch.nn.functional as F
    from torch.utils._python_dispatch import TorchDispatchMode

    torch.manual_seed(0)
    convs = [torch.nn.Conv1d(CHANNELS, CHANNELS, KERNEL, dilation=d) for d in DILATIONS]
    x = torch.randn(1, CHANNELS, LENGTH)
    events: List[Dict[str, Any]] = []
    t0 = time.perf_counter()
    now = lambda: round((time.perf_counter() - t0) * 1e6, 3)
    ext = [0]

    class Record(TorchDispatchMode):
        def __init__(self, dilation: int) -> None:
            super().__init__()
            self.dilation = dilation

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            start = now()
            out = func(*args, **(kwargs or {}))
            ext[0] += 1
            name = "aten::" + func.__name__.split(".")[0]
            events.append(_op_event(name, [_arg(v) for v in args], start, now() - start, ext[0], shapes))
            if name == "aten::convolution":
                ev = events[-1]
                events.append({"ph": "X", "cat": "kernel", "name": KERNEL_NAME, "pid": 0, "tid": 7,
                               "ts": ev["ts"] + ev["dur"], "dur": 10.0 * self.dilation,
                               "args": {"External id": ev["args"]["External id"], "correlation": ext[0],
                                        "device": 0, "stream": 7, "grid": GRID, "block": BLOCK}})
            return out

    with torch.no_grad():
        for _ in range(2):
            for conv, d in zip(convs, DILATIONS):
                start = now()
                ext[0] += 1
                top_ext = ext[0]
                with Record(d):
                    F.conv1d(x, conv.weight, conv.bias, 1, 0, d, 1)
                args = [_arg(v) for v in (x, conv.weight, conv.bias, [1], [0], [d], 1)]
                events.append(_op_event("aten::conv1d", args, start, now() - start, top_ext, shapes))
    events.sort(key=lambda e: (e["ts"], -e["dur"]))
    return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "computeMajor": 9,
                                                      "computeMinor": 0, "numSms": 132}],
            "traceEvents": events, "vxsynth_fixture": "python -m vxsynth_torch.tcn_fixture (see its docstring)"}


def write(path: str, trace: Dict[str, Any]) -> None:
    with gzip.open(path + ".tmp", "wt", encoding="utf-8") as f:
        json.dump(trace, f, indent=0)
    os.replace(path + ".tmp", path)


def main(argv: List[str] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vxsynth_torch.tcn_fixture",
                                 description="Write the TCN trace fixtures (with and without op arguments).")
    ap.add_argument("--out", required=True, help="output folder (e.g. tests/data/tcn)")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    write(os.path.join(a.out, "tcn.trace.json.gz"), record(shapes=True))
    write(os.path.join(a.out, "tcn_no_shapes.trace.json.gz"), record(shapes=False))
    print(f"tcn_fixture: wrote {a.out}/tcn.trace.json.gz and tcn_no_shapes.trace.json.gz")
    return 0


if __name__ == "__main__":
    sys.exit(main())
