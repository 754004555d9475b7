"""Real operator captures for the importer tests: for each operator below, a torch
trace of one steady-state call and ncu raw CSV rows (metric list docs/ncu.md §0.1), plus one
`--page details` CSV. Shapes are taken from the workloads (docs/workloads.md).

usage: python -m vxsynth_torch.capture_ops --out DIR [--ncu PATH] [--no-ncu]
Writes DIR/<op>.trace.json.gz, DIR/<op>.ncu_raw.csv, DIR/ops_all.ncu_raw.csv (all ops, with the NVTX
columns), DIR/<DETAILS_OP>.ncu_details.csv, DIR/ops.json (this table) and DIR/provenance.json.
Exit 3 if ncu cannot read counters (ERR_NVGPUCTRPERM) or drops a metric.
"""
from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, asdict
from typing import Callable, Dict, List, Optional, Tuple

from . import ncu as ncu_mod
from . import provenance


@dataclass(frozen=True)
class OpSpec:
    """One captured operator: torch call, shapes, dtype and cuDNN TF32 setting, and where the shape is from."""
    name: str
    call: str                 # torch.matmul | F.linear | F.conv1d | F.conv2d
    shapes: Tuple[Tuple[int, ...], ...]
    dtype: str                # float32 | bfloat16
    cudnn_tf32: bool
    expect: str               # expected engine path (docs/ncu.md §7.1, §8)
    source: str
    kwargs: Tuple[Tuple[str, int], ...] = ()


#: The five captured operators (one row each).
OPS: Tuple[OpSpec, ...] = (
    OpSpec("linear_fp32_simt", "F.linear", ((302, 1, 512), (3200, 512), (3200,)), "float32", True,
           "fp32 SIMT FFMA GEMM (matmul TF32 off by default)", "ACT encoder FFN linear1 512->3200, S=302 (§1.4)"),
    OpSpec("matmul_bf16_tc", "torch.matmul", ((1, 8, 816, 256), (1, 8, 256, 816)), "bfloat16", True,
           "bf16 tensor-core GEMM (bmm)", "pi0 Gemma-2B prefix attention logits q.k^T, 816 tokens (§3.6)"),
    OpSpec("conv1d_fp32_tf32", "F.conv1d", ((1, 2048, 4), (2048, 2048, 5), (2048,)), "float32", True,
           "TF32 tensor-core implicit GEMM (cuDNN default allow_tf32=True)",
           "Diffusion Policy U-Net mid block conv 2048->2048 k5 at T=4 (§2.4)", (("padding", 2),)),
    OpSpec("conv2d_fp32_tf32", "F.conv2d", ((1, 64, 120, 160), (64, 64, 3, 3)), "float32", True,
           "TF32 tensor-core implicit GEMM (+ NCHW<->NHWC transposes)",
           "ACT ResNet-18 layer1 conv3x3 64->64 at 120x160 (§1.4)", (("padding", 1),)),
    OpSpec("conv2d_fp32_simt", "F.conv2d", ((1, 64, 120, 160), (64, 64, 3, 3)), "float32", False,
           "fp32 SIMT FFMA implicit GEMM (cudnn.allow_tf32=False)",
           "same ACT conv with cuDNN TF32 off", (("padding", 1),)),
)

DETAILS_OP = "linear_fp32_simt"


def make_call(spec: OpSpec, device: str = "cuda", seed: int = 0) -> Callable[[], object]:
    """Allocate N(0,1) operands for `spec` on `device` and return a closure doing one call with the
    spec's cuDNN TF32 setting applied for the duration of the call."""
    import torch
    import torch.nn.functional as F
    g = torch.Generator(device="cpu").manual_seed(seed)
    dt = getattr(torch, spec.dtype)
    ts = [torch.randn(*s, generator=g).to(device=device, dtype=dt) for s in spec.shapes]
    kw = dict(spec.kwargs)
    fn = {"torch.matmul": torch.matmul, "F.linear": F.linear, "F.conv1d": F.conv1d, "F.conv2d": F.conv2d}[spec.call]

    def call():
        old = torch.backends.cudnn.allow_tf32
        torch.backends.cudnn.allow_tf32 = spec.cudnn_tf32
        try:
            with torch.inference_mode():
                return fn(*ts, **kw)
        finally:
            torch.backends.cudnn.allow_tf32 = old
    return call


def ncu_target() -> int:
    """Under ncu: warm up every op, then inside cudaProfilerStart/Stop call each op twice inside an NVTX
    range named after it."""
    import torch
    calls = [(s.name, make_call(s)) for s in OPS]
    for _, c in calls:
        for _ in range(3):
            c()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for name, c in calls:
        torch.cuda.nvtx.range_push(name)
        c()
        c()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    torch.cuda.profiler.stop()
    return 0


def trace_ops(out: str) -> None:
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function
    for s in OPS:
        c = make_call(s)
        for _ in range(3):
            c()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            with record_function(s.name):
                c()
            torch.cuda.synchronize()
        raw = os.path.join(out, f"{s.name}.trace.json")
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb") as g:
            shutil.copyfileobj(f, g)
        os.remove(raw)


def split_by_nvtx(text: str) -> Dict[str, List[str]]:
    """Original raw-CSV lines per op: header, units, then the data rows whose NVTX push/pop column
    names the op (lines kept byte-identical)."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"ID",'))
    header = next(csv.reader([lines[start]]))
    col = next((i for i, h in enumerate(header) if "Push/Pop_Range" in h), None)
    out: Dict[str, List[str]] = {s.name: [lines[start], lines[start + 1]] for s in OPS}
    for l in lines[start + 2:]:
        if not l.strip():
            continue
        row = next(csv.reader([l]))
        cell = row[col] if col is not None and col < len(row) else ""
        for s in OPS:
            if f":{s.name}:" in cell or cell.endswith(s.name):
                out[s.name].append(l)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vxsynth_torch.capture_ops")
    ap.add_argument("--out")
    ap.add_argument("--ncu", default=None)
    ap.add_argument("--no-ncu", action="store_true")
    ap.add_argument("--ncu-target", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.ncu_target:
        return ncu_target()
    if not a.out:
        ap.error("--out is required")
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "ops.json"), "w") as f:
        json.dump([asdict(s) for s in OPS], f, indent=1)
    ncu = None if a.no_ncu else ncu_mod.find_ncu(a.ncu)
    cmdline = [sys.executable, "-m", "vxsynth_torch.capture_ops"] + list(sys.argv[1:] if argv is None else argv)
    prov = provenance.collect(cmdline, ncu, {"ncu_window": "each op twice after 3 warm-up calls, NVTX range per op"})
    trace_ops(out)
    status = 0
    if ncu:
        rep = os.path.join(out, "ops")
        target = [sys.executable, "-m", "vxsynth_torch.capture_ops", "--ncu-target"]
        cmd = [ncu, "--nvtx", "--target-processes", "all", "--clock-control", "none", "--cache-control", "all",
               "--profile-from-start", "off", "--metrics", ",".join(ncu_mod.capture_metrics()), "--import-sass", "no",
               "-f", "-o", rep] + target
        prov["ncu_command"] = " ".join(cmd)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=400)
        log = r.stdout + r.stderr
        with open(os.path.join(out, "ncu.log"), "w") as f:
            f.write(log)
        try:
            ncu_mod.check_output(log, "capture_ops ncu")
            if r.returncode != 0:
                raise ncu_mod.NcuError(f"ncu exited {r.returncode}")
            raw = subprocess.run(ncu_mod.export_command(ncu, rep + ".ncu-rep", "raw"), capture_output=True,
                                 text=True, check=True).stdout
            header, _, rows = ncu_mod.parse_raw_csv(raw, "ops_all.ncu_raw.csv")
            ncu_mod.require_metrics(header, where="ops_all.ncu_raw.csv")
            with open(os.path.join(out, "ops_all.ncu_raw.csv"), "w") as f:
                f.write(raw)
            parts = split_by_nvtx(raw)
            for name, lines in parts.items():
                with open(os.path.join(out, f"{name}.ncu_raw.csv"), "w") as f:
                    f.write("\n".join(lines) + "\n")
            det = subprocess.run(ncu_mod.export_command(ncu, rep + ".ncu-rep", "details"), capture_output=True,
                                 text=True, check=True).stdout
            ids = {next(csv.reader([l]))[0] for l in parts[DETAILS_OP][2:]}
            dl = det.splitlines()
            ds = next(i for i, l in enumerate(dl) if l.startswith('"ID",'))
            keep = [dl[ds]] + [l for l in dl[ds + 1:] if l and next(csv.reader([l]))[0] in ids]
            with open(os.path.join(out, f"{DETAILS_OP}.ncu_details.csv"), "w") as f:
                f.write("\n".join(keep) + "\n")
            prov["ncu_counters"] = "ok"
            for s in OPS:
                print(f"[capture_ops] {s.name}: {len(parts[s.name]) - 2} ncu rows")
        except (ncu_mod.NcuError, subprocess.CalledProcessError, StopIteration) as e:
            prov["ncu_counters"] = f"failed: {e}"
            print(f"[capture_ops] ncu failed: {e}", file=sys.stderr)
            status = 3
        finally:
            if os.path.exists(rep + ".ncu-rep"):
                os.remove(rep + ".ncu-rep")
    with open(os.path.join(out, "provenance.json"), "w") as f:
        json.dump(prov, f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
