#!/usr/bin/env python3
"""Times the PyTorch op of every candidate of a vxsynth_gpu_pack directory the way the candidate's
driver times itself (one warm-up launch, then the mean of ten back-to-back launches between two CUDA
events), so that `time_us` of the driver's RESULT line and this script's TORCH line compare like
for like. Shapes come from each candidate's point.json (fixed.op); precision path: fp32 with TF32
off, tf32 with TF32 on, bf16 tensors for bf16.

usage: torch_time.py PACK_DIR        (prints one "TORCH <name> time_us=<t> path=<p>" line each)
"""
import json
import pathlib
import sys

import torch
import torch.nn.functional as F


def make_call(op, dtype):
    dev = "cuda"
    fam = op["family"]
    r = lambda *s: torch.randn(*s, device=dev, dtype=dtype)
    if fam == "linear":
        g = op["gemm"]
        x, w = r(g["m"], g["k"]), r(g["n"], g["k"])
        b = r(g["n"]) if op["has_bias"] else None
        return lambda: F.linear(x, w, b)
    if fam in ("bmm", "matmul"):
        g = op["gemm"]
        a = r(g["batch"], g["m"], g["k"]) if fam == "bmm" else r(g["m"], g["k"])
        bb = r(g["k"], g["n"]) if op.get("b_batch_stride", -1) == 0 or fam == "matmul" else r(g["batch"], g["k"], g["n"])
        return lambda: torch.matmul(a, bb)
    c = op["conv"]
    if fam == "conv1d":
        x, w = r(c["n"], c["c"], c["w"]), r(c["k"], c["c"] // c["groups"], c["s"])
        b = r(c["k"]) if op["has_bias"] else None
        return lambda: F.conv1d(x, w, b, c["stride"][1], c["pad"][1], c["dilation"][1], c["groups"])
    x, w = r(c["n"], c["c"], c["h"], c["w"]), r(c["k"], c["c"] // c["groups"], c["r"], c["s"])
    b = r(c["k"]) if op["has_bias"] else None
    return lambda: F.conv2d(x, w, b, c["stride"], c["pad"], c["dilation"], c["groups"])


def time_us(fn):
    fn()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(10):
        fn()
    e1.record()
    e1.synchronize()
    return e0.elapsed_time(e1) * 100.0  # ms for 10 launches -> us per launch


def main():
    pack = pathlib.Path(sys.argv[1])
    for d in sorted(p for p in pack.iterdir() if (p / "point.json").exists()):
        fixed = json.loads((d / "point.json").read_text())["fixed"]
        path = fixed["path"]
        torch.backends.cuda.matmul.allow_tf32 = path == "tf32"
        torch.backends.cudnn.allow_tf32 = path == "tf32"
        dtype = torch.bfloat16 if path == "bf16" else torch.float32
        print(f"TORCH {d.name} time_us={time_us(make_call(fixed['op'], dtype)):.1f} path={path}", flush=True)


if __name__ == "__main__":
    main()
