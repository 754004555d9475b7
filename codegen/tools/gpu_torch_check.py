#!/usr/bin/env python3
"""Source-output check of packed CUDA candidates against the PyTorch op, on the GPU.

Input: a pack written by `vxsynth_gpu_pack OUT_DIR` (one folder per design point holding
candidate.cu, driver.cu and point.json). For each point (by default only the `*_seed` ones):

1. builds driver.cu with nvcc for sm_90 (all points in parallel, --jobs);
2. draws fresh seeded inputs with torch, scaled like the workload (activations N(0,1), weights and
   bias N(0, 1/fan_in); docs: docs/signature.md §4), rounded to the
   stored type of the path (fp32, or bf16 on the BF16 path);
3. writes them as raw little-endian files <operand>.bin in the driver's operand order and dtype
   (linear: x[M,K], weight[N,K], bias[N]; matmul/bmm: a[Z,M,K], b[Z,K,N] with the batch strides of
   point.json, -1 = dense, 0 = broadcast; conv: x[N,C,H,W], weight[K,C/g,R,S], bias[K]; conv1d has
   H = R = 1), exactly what `driver -d DIR` reads (emit_cuda_driver in codegen/src/emit_cuda.cc);
4. runs `driver -d DIR` (the driver NaN-poisons the output and writes DIR/out.bin, same dtype);
5. computes the PyTorch op on the GPU from the same inputs in the reference dtype: BF16 path in
   bf16; FP32 path in fp32 with TF32 off (the profiled kernel ran on the SIMT engine, i.e. no TF32);
   TF32 path in fp32 with TF32 on (PyTorch's default for cuDNN convs; matmul TF32 set on too for a
   TF32-path linear, none in the current references). For FP32-path convs the error against
   PyTorch's default (cuDNN TF32 on) reference is also reported, for information;
6. checks every element |c - r| <= atol + rtol*|r| with the path's source-output tolerance
   (check/include/vxsynth/check/precision.h kPrecisionTable); NaN/Inf, all-zero or constant output fail.

Prints one RESULT line per point and a per-path summary; writes a JSON report.
Usage: gpu_torch_check.py PACK_DIR [--out FILE.json] [--all] [--jobs N] [--seed S] [--nvcc NVCC]
Needs: python3 stdlib, numpy, torch (CUDA); nvcc. Parts without a GPU are tested by
`gpu_torch_check.py --self-test` (file layout round trip and op layouts vs a loop reference, CPU).
"""
import argparse
import concurrent.futures as cf
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

# Source-output tolerances (atol, rtol): copy of kPrecisionTable in
# check/include/vxsynth/check/precision.h (doc: docs/signature.md §4). The driver prints
# its own tolerance line too; `main` cross-checks against it.
TOL = {"fp32": (1e-5, 1e-4), "tf32": (1e-3, 2e-2), "bf16": (1e-2, 1.6e-2)}
# Paper §4.2 max observed source-output errors, for the report.
PAPER = {"fp32": "1.6e-6 abs", "tf32": "1.1e-2 rel", "bf16": "4.9e-4 abs"}


def operands(point):
    """[(name, shape, is_weight)] in the driver's order, the output shape and fan_in."""
    op = point["fixed"]["op"]
    fam = op["family"]
    if fam == "linear":
        g = op["gemm"]
        m, n, k = g["m"], g["n"], g["k"]
        ops = [("x", (m, k), False), ("weight", (n, k), True)]
        if op["has_bias"]:
            ops.append(("bias", (n,), True))
        return ops, (m, n), k
    if fam in ("matmul", "bmm"):
        g = op["gemm"]
        z, m, n, k = g.get("batch", 1), g["m"], g["n"], g["k"]
        sa, sb = op.get("a_batch_stride", -1), op.get("b_batch_stride", -1)
        za = 1 if sa == 0 else z
        zb = 1 if sb == 0 else z
        return [("a", (za, m, k), False), ("b", (zb, k, n), True)], (z, m, n), k
    if fam in ("conv1d", "conv2d"):
        c = op["conv"]
        cg = c["c"] // c["groups"]
        ops = [("x", (c["n"], c["c"], c["h"], c["w"]), False),
               ("weight", (c["k"], cg, c["r"], c["s"]), True)]
        if op["has_bias"]:
            ops.append(("bias", (c["k"],), True))
        p = (c["h"] + 2 * c["pad"][0] - c["dilation"][0] * (c["r"] - 1) - 1) // c["stride"][0] + 1
        q = (c["w"] + 2 * c["pad"][1] - c["dilation"][1] * (c["s"] - 1) - 1) // c["stride"][1] + 1
        return ops, (c["n"], c["k"], p, q), cg * c["r"] * c["s"]
    raise ValueError(f"unknown op family {fam!r}")


def store_dtype(path):
    return torch.bfloat16 if path == "bf16" else torch.float32


def write_bin(t, path):
    """Raw little-endian elements of t (fp32, or bf16 as its 16-bit pattern), C order."""
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t.view(torch.int16).numpy().astype("<i2").tofile(path)
    else:
        t.numpy().astype("<f4").tofile(path)


def read_bin(path, dtype, numel):
    """Inverse of write_bin; returns a float64 numpy array (bf16 widened exactly)."""
    if dtype == torch.bfloat16:
        raw = np.fromfile(path, dtype="<u2")
        vals = (raw.astype(np.uint32) << 16).view(np.float32)
    else:
        vals = np.fromfile(path, dtype="<f4")
    if vals.size != numel:
        raise ValueError(f"{path}: {vals.size} elements, expected {numel}")
    return vals.astype(np.float64)


def torch_op(point, ins):
    """The PyTorch op on tensors `ins` (driver order), in their dtype."""
    op = point["fixed"]["op"]
    fam = op["family"]
    bias = ins[2] if op["has_bias"] else None
    if fam == "linear":
        y = F.linear(ins[0], ins[1], bias)
    elif fam in ("matmul", "bmm"):
        z = point["fixed"]["op"]["gemm"].get("batch", 1)
        a = ins[0].expand(z, -1, -1)
        b = ins[1].expand(z, -1, -1)
        y = torch.bmm(a, b)
    else:
        c = op["conv"]
        if fam == "conv1d":
            y = F.conv1d(ins[0].squeeze(2), ins[1].squeeze(2), bias, stride=c["stride"][1],
                         padding=c["pad"][1], dilation=c["dilation"][1], groups=c["groups"])
        else:
            y = F.conv2d(ins[0], ins[1], bias, stride=tuple(c["stride"]), padding=tuple(c["pad"]),
                         dilation=tuple(c["dilation"]), groups=c["groups"])
    if op["activation"] == "relu":
        y = F.relu(y)
    return y


def set_tf32(on):
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on


def compare(c, r, atol, rtol):
    """Per-element check; c, r float64 numpy arrays."""
    finite = np.isfinite(c)
    diff = np.abs(c - r)
    ok = finite & (diff <= atol + rtol * np.abs(r))
    fin_c = c[finite]
    nz = (r != 0) & finite
    res = {
        "elements": int(c.size),
        "non_finite": int((~finite).sum()),
        "failed": int((~ok).sum()),
        "max_abs": float(diff[finite].max()) if finite.any() else math.inf,
        "max_rel": float((diff[nz] / np.abs(r[nz])).max()) if nz.any() else 0.0,
        "all_zero": bool(fin_c.size == 0 or not fin_c.any()),
        "constant": bool(c.size > 1 and fin_c.size == c.size and (fin_c == fin_c[0]).all()),
    }
    res["pass"] = res["failed"] == 0 and not res["all_zero"] and not res["constant"]
    return res


def build(d, nvcc, target):
    t0 = time.time()
    p = subprocess.run([nvcc, target, "-std=c++17", "-O2", "-o", "driver", "driver.cu"], cwd=d,
                       capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr)[-2000:], time.time() - t0


def check_point(d, name, seed, device):
    point = json.load(open(os.path.join(d, "point.json")))
    path = point["fixed"]["path"]
    atol, rtol = TOL[path]
    ops, out_shape, fan_in = operands(point)
    st = store_dtype(path)
    gen = torch.Generator(device=device).manual_seed(seed)
    data = os.path.join(d, "torchdata")
    os.makedirs(data, exist_ok=True)
    ins = []
    for nm, shape, is_w in ops:
        sc = 1.0 / math.sqrt(fan_in) if is_w else 1.0
        t = (torch.randn(shape, generator=gen, device=device, dtype=torch.float32) * sc).to(st)
        write_bin(t, os.path.join(data, nm + ".bin"))
        ins.append(t)
    outp = os.path.join(data, "out.bin")
    if os.path.exists(outp):
        os.remove(outp)
    p = subprocess.run(["./driver", "-d", "torchdata"], cwd=d, capture_output=True, text=True, timeout=120)
    driver_line = " ".join(l for l in p.stdout.splitlines() if l.startswith("RESULT"))
    rec = {"name": name, "path": path, "atol": atol, "rtol": rtol, "seed": seed,
           "family": point["fixed"]["op"]["family"], "out_shape": list(out_shape),
           "driver_rc": p.returncode, "driver_result_vs_float64": driver_line}
    if p.returncode not in (0, 2) or not os.path.exists(outp):  # 2: the driver's own float64 check failed
        rec.update({"pass": False, "error": f"driver rc={p.returncode}: {(p.stdout + p.stderr)[-500:]}"})
        return rec
    n_out = int(np.prod(out_shape))
    c = read_bin(outp, st, n_out)
    set_tf32(path == "tf32")
    with torch.no_grad():
        r = torch_op(point, ins)
    torch.cuda.synchronize()
    rec["torch_ref"] = f"{r.dtype} tf32={'on' if path == 'tf32' else 'off'}"
    rr = r.float().double().cpu().numpy().reshape(-1)
    rec.update(compare(c, rr, atol, rtol))
    if path == "fp32" and point["fixed"]["op"]["family"].startswith("conv"):
        torch.backends.cudnn.allow_tf32 = True  # PyTorch's default for cuDNN
        with torch.no_grad():
            r2 = torch_op(point, ins).double().cpu().numpy().reshape(-1)
        info = compare(c, r2, atol, rtol)
        rec["vs_default_cudnn_tf32_ref"] = {k: info[k] for k in ("max_abs", "max_rel", "failed", "pass")}
    set_tf32(False)
    for nm, _, _ in ops:
        os.remove(os.path.join(data, nm + ".bin"))
    return rec


def self_test():
    """CPU-only: file round trip (fp32, bf16) and op layouts vs a loop reference of the driver's indexing."""
    import tempfile
    g = torch.Generator().manual_seed(1)
    with tempfile.TemporaryDirectory() as td:
        for dt in (torch.float32, torch.bfloat16):
            t = torch.randn(3, 5, generator=g).to(dt)
            write_bin(t, os.path.join(td, "t.bin"))
            assert os.path.getsize(os.path.join(td, "t.bin")) == 15 * (2 if dt == torch.bfloat16 else 4)
            back = read_bin(os.path.join(td, "t.bin"), dt, 15)
            assert np.array_equal(back, t.double().numpy().reshape(-1)), dt
    # linear: out[m,n] = sum_k x[m*K+k] w[n*K+k] + b[n]
    pt = {"fixed": {"op": {"family": "linear", "gemm": {"m": 3, "n": 4, "k": 5}, "has_bias": True,
                           "activation": "relu"}}}
    ops, osh, fan = operands(pt)
    ins = [torch.randn(s, generator=g, dtype=torch.float64) for _, s, _ in ops]
    x, w, b = (t.numpy().reshape(-1) for t in ins)
    ref = np.array([max(0.0, sum(x[m * 5 + k] * w[n * 5 + k] for k in range(5)) + b[n])
                    for m in range(3) for n in range(4)])
    assert np.allclose(torch_op(pt, ins).numpy().reshape(-1), ref) and fan == 5
    # bmm with a broadcast B (b_batch_stride 0): out[z,m,n] = sum_k a[z*sa+m*K+k] b[z*sb+k*N+n]
    pt = {"fixed": {"op": {"family": "bmm", "gemm": {"batch": 2, "m": 3, "n": 4, "k": 5}, "has_bias": False,
                           "activation": "none", "a_batch_stride": -1, "b_batch_stride": 0}}}
    ops, osh, fan = operands(pt)
    ins = [torch.randn(s, generator=g, dtype=torch.float64) for _, s, _ in ops]
    a, bb = (t.numpy().reshape(-1) for t in ins)
    ref = np.array([sum(a[z * 15 + m * 5 + k] * bb[k * 4 + n] for k in range(5))
                    for z in range(2) for m in range(3) for n in range(4)])
    assert np.allclose(torch_op(pt, ins).numpy().reshape(-1), ref) and osh == (2, 3, 4)
    # conv2d and conv1d: the driver's ref_kernel indexing (NCHW x, KCRS weight, NKPQ out).
    for fam, c in (("conv2d", {"n": 2, "c": 4, "h": 5, "w": 6, "k": 6, "r": 3, "s": 2, "stride": [2, 1],
                               "pad": [1, 1], "dilation": [1, 2], "groups": 2}),
                   ("conv1d", {"n": 1, "c": 3, "h": 1, "w": 7, "k": 2, "r": 1, "s": 5, "stride": [1, 1],
                               "pad": [0, 2], "dilation": [1, 1], "groups": 1})):
        pt = {"fixed": {"op": {"family": fam, "conv": c, "has_bias": True, "activation": "none"}}}
        ops, (N, K, P, Q), fan = operands(pt)
        ins = [torch.randn(s, generator=g, dtype=torch.float64) for _, s, _ in ops]
        xx, ww, bias = (t.numpy().reshape(-1) for t in ins)
        cg, kg = c["c"] // c["groups"], c["k"] // c["groups"]
        ref = []
        for nb in range(N):
            for ko in range(K):
                for p in range(P):
                    for q in range(Q):
                        acc = bias[ko]
                        grp = ko // kg
                        for ci in range(cg):
                            for r in range(c["r"]):
                                for t in range(c["s"]):
                                    h = p * c["stride"][0] - c["pad"][0] + r * c["dilation"][0]
                                    wq = q * c["stride"][1] - c["pad"][1] + t * c["dilation"][1]
                                    if 0 <= h < c["h"] and 0 <= wq < c["w"]:
                                        acc += (xx[((nb * c["c"] + grp * cg + ci) * c["h"] + h) * c["w"] + wq]
                                                * ww[((ko * cg + ci) * c["r"] + r) * c["s"] + t])
                        ref.append(acc)
        got = torch_op(pt, ins).numpy().reshape(-1)
        assert got.size == len(ref) and np.allclose(got, np.array(ref)), fam
    # compare(): NaN, constant and all-zero outputs fail; a close output passes.
    r = np.linspace(-1, 1, 10)
    assert compare(r + 1e-7, r, 1e-5, 1e-4)["pass"]
    bad = r.copy(); bad[3] = np.nan
    assert not compare(bad, r, 1e-5, 1e-4)["pass"]
    assert not compare(np.zeros(10), np.zeros(10), 1e-5, 1e-4)["pass"]
    assert not compare(np.ones(10), np.ones(10), 1e-5, 1e-4)["pass"]
    assert not compare(r + 1e-3, r, 1e-5, 1e-4)["pass"]
    print("self-test OK")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pack", nargs="?")
    ap.add_argument("--out", default="gpu_torch_check.json")
    ap.add_argument("--all", action="store_true", help="every point, not only *_seed")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        self_test()
        return 0
    if not a.pack:
        ap.error("PACK_DIR is required")
    target_file = os.path.join(a.pack, "nvcc_target")
    if not os.path.isfile(target_file):
        ap.error(f"{target_file}: missing (written by vxsynth_gpu_pack: the nvcc target flag of the pack)")
    with open(target_file) as f:
        target = f.read().strip()
    names = sorted(n for n in os.listdir(a.pack) if os.path.isfile(os.path.join(a.pack, n, "driver.cu"))
                   and (a.all or n.endswith("_seed")))
    t0 = time.time()
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        builds = dict(zip(names, ex.map(lambda n: build(os.path.join(a.pack, n), a.nvcc, target), names)))
    print(f"built {len(names)} drivers in {time.time() - t0:.1f} s with {a.jobs} jobs", flush=True)
    device = torch.device("cuda")
    recs = []
    for i, n in enumerate(names):
        d = os.path.join(a.pack, n)
        rc, log, _ = builds[n]
        if rc != 0:
            rec = {"name": n, "pass": False, "error": "nvcc failed: " + log}
        else:
            try:
                rec = check_point(d, n, a.seed + i, device)
            except Exception as e:  # report, keep going
                rec = {"name": n, "pass": False, "error": f"{type(e).__name__}: {e}"}
        recs.append(rec)
        if "error" in rec:
            print(f"RESULT {n} ERROR {rec['error'][-300:]} FAIL", flush=True)
        else:
            extra = ""
            if "vs_default_cudnn_tf32_ref" in rec:
                v = rec["vs_default_cudnn_tf32_ref"]
                extra = f" [vs cuDNN-TF32-on ref: max_abs={v['max_abs']:.3e} failed={v['failed']}]"
            print(f"RESULT {n} path={rec['path']} ref=torch({rec['torch_ref']}) elements={rec['elements']} "
                  f"max_abs={rec['max_abs']:.3e} max_rel={rec['max_rel']:.3e} failed={rec['failed']} "
                  f"non_finite={rec['non_finite']} {'PASS' if rec['pass'] else 'FAIL'}{extra}", flush=True)
    summary = {}
    for p in ("fp32", "tf32", "bf16"):
        rs = [r for r in recs if r.get("path") == p and "max_abs" in r]
        if not rs:
            continue
        summary[p] = {"points": len(rs), "passed": sum(r["pass"] for r in rs),
                      "max_abs": max(r["max_abs"] for r in rs), "max_rel": max(r["max_rel"] for r in rs),
                      "tolerance_atol_rtol": list(TOL[p]), "paper_4_2": PAPER[p]}
        s = summary[p]
        print(f"SUMMARY path={p} points={s['points']} passed={s['passed']} max_abs={s['max_abs']:.3e} "
              f"max_rel={s['max_rel']:.3e} tol=atol {TOL[p][0]:g} rtol {TOL[p][1]:g} paper={PAPER[p]}")
    env = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "torch_cuda": torch.version.cuda,
           "cudnn": torch.backends.cudnn.version(), "seed": a.seed,
           "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "argv": sys.argv}
    ok = all(r["pass"] for r in recs) and len(recs) > 0
    with open(a.out, "w") as f:
        json.dump({"environment": env, "summary": summary, "results": recs, "all_pass": ok}, f, indent=1)
    print(f"ALL {'PASS' if ok else 'FAIL'} ({sum(r['pass'] for r in recs)}/{len(recs)})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
