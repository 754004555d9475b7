"""In-workload run of a candidate (paper §3.4 "Swapped execution", §3.5 source-output check): the
driver the C++ ncu backend runs, under Nsight Compute, for every revision.

usage: python -m vxsynth_torch.swap_run --spec SPEC.json --lib candidate.so --out DIR [--data DIR]
                                        [--device auto|cuda|cpu]

SPEC (`swap_spec.json`, written by refine's workload profiler from the reference bundle): the operator
(check's OpSpec), storage dtype, workload and configuration, the reference capture's warm-up and
window iterations and TF32 settings, and the reference kernel's launches per step.

Steps, mirroring the reference capture (python/vxsynth_torch/profile.py):
 1. TF32 flags as the capture recorded them (so the original op runs the reference's path);
 2. with --data: the sampled inputs DATA/<operand>.bin (check's files) through the candidate ->
    DATA/cuda_out.bin and through the original PyTorch op on the same device -> DATA/torch_out.bin;
 3. the workload built as the capture built it (same seed) and one step without the swap (the policy
    output the swapped steps are compared with);
 4. the swap (swap.OpSwap with a swap_view.SpecMatcher target) installed for `warmup` steps, then
    cudaProfilerStart, `region_iters` steps, cudaProfilerStop: ncu (--profile-from-start off) profiles
    only the window, so the launch index of the capture's filter selects the same position;
 5. in the first swapped step every routed call is also computed by the original op on the same
    (real) activations; both outputs go to OUT/calls/<n>_{candidate,original}.bin for the C++ check;
 6. OUT/dispatch.jsonl (every call, routed or not, with its step) and OUT/swap_result.json.
Exit status: 0 ran (the C++ side judges the dispatch counts and outputs), 2 bad arguments or spec,
3 the candidate library failed to load or launch.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Dict, List, Optional

EXIT_OK, EXIT_ARGS, EXIT_CANDIDATE = 0, 2, 3

#: Spec keys the driver reads; a spec without one is refused with its name.
SPEC_KEYS = ("schema", "op", "storage", "operands", "output_shape", "workload", "config", "warmup",
             "region_iters", "tf32", "reference_launches_per_step")


class SpecError(ValueError):
    pass


def load_spec(path: str) -> Dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise SpecError(f"{path}: {e}") from None
    missing = [k for k in SPEC_KEYS if k not in spec]
    if missing:
        raise SpecError(f"{path}: missing field(s) {', '.join(missing)}")
    if spec["schema"] != "vxsynth.swap_spec/1":
        raise SpecError(f"{path}: schema '{spec['schema']}' is not vxsynth.swap_spec/1")
    return spec


def apply_tf32(tf32: Dict[str, Any]) -> None:
    """The capture's TF32 settings (provenance `tf32`), so the original op takes the reference's path."""
    import torch
    if "matmul.allow_tf32" in tf32:
        torch.backends.cuda.matmul.allow_tf32 = bool(tf32["matmul.allow_tf32"])
    if "cudnn.allow_tf32" in tf32:
        torch.backends.cudnn.allow_tf32 = bool(tf32["cudnn.allow_tf32"])


def _tensor_io(dtype):
    import torch
    return {torch.float32: ("<f4", 4), torch.bfloat16: ("<u2", 2)}[dtype]


def read_operand(path: str, shape: List[int], dtype, device: str):
    """A check tensor file (raw little-endian fp32, or bf16 bits) as a tensor of `shape`."""
    import torch
    n = 1
    for d in shape:
        n *= int(d)
    with open(path, "rb") as f:
        raw = f.read()
    size = _tensor_io(dtype)[1]
    if len(raw) != n * size:
        raise SpecError(f"{path}: {len(raw)} bytes, expected {n * size} for shape {shape}")
    t = torch.frombuffer(bytearray(raw), dtype=dtype).reshape(shape)
    return t.to(device)


def write_tensor(path: str, t) -> None:
    import torch
    data = t.detach().contiguous().cpu()
    if data.dtype == torch.bfloat16:
        data = data.view(torch.int16)
    with open(path + ".tmp", "wb") as f:
        f.write(data.numpy().tobytes())
    os.replace(path + ".tmp", path)


def original_op(family: str, spec: Dict[str, Any], originals: Dict[str, Any], tensors):
    """The PyTorch op of the spec on check's operand layout (x, weight[, bias] or a, b)."""
    op = spec["op"]
    if family == "linear":
        return originals["linear"](*tensors)
    if family in ("matmul", "bmm"):
        return originals["matmul"](*tensors)
    c = op["conv"]
    x, w = tensors[0], tensors[1]
    b = tensors[2] if len(tensors) > 2 else None
    if family == "conv1d":
        return originals["conv1d"](x, w, b, c["stride"][1], c["pad"][1], c["dilation"][1], c["groups"])
    return originals["conv2d"](x, w, b, tuple(c["stride"]), tuple(c["pad"]), tuple(c["dilation"]), c["groups"])


def operand_tensors(spec: Dict[str, Any], data: str, dtype, device: str):
    import torch
    ts = []
    for o in spec["operands"]:
        t = read_operand(os.path.join(data, o["name"] + ".bin"), o["shape"], dtype, device)
        ts.append(t)
    return ts


def original_operands(spec: Dict[str, Any], ts):
    """The operands as the original op takes them. check's bmm layout (check/src/op_spec.cc
    operands) is two flat storages with batch strides; the original op sees them as strided views
    a[batch, M, K] and b[batch, K, N] (b's stride 0: one b broadcast over the batch)."""
    op = spec["op"]
    if op["family"] != "bmm":
        return ts
    g = op["gemm"]
    batch, m, n, k = int(g["batch"]), int(g["m"]), int(g["n"]), int(g["k"])
    sa = int(op.get("a_batch_stride", -1))
    sb = int(op.get("b_batch_stride", -1))
    a = ts[0].as_strided((batch, m, k), (m * k if sa < 0 else sa, k, 1))
    b = ts[1].as_strided((batch, k, n), (k * n if sb < 0 else sb, n, 1))
    return [a, b]


def sampled_check(spec, proxy, data: str, device: str, originals) -> Dict[str, Any]:
    """Step 2: the sampled inputs through the candidate and through the original op."""
    import torch
    ts = operand_tensors(spec, data, proxy.dtype, device)
    fam = spec["op"]["family"]
    cand = proxy.run(ts if fam not in ("matmul", "bmm") else ts[:2], spec["output_shape"])
    with torch.inference_mode():
        orig = original_op(fam, spec, originals, original_operands(spec, ts))
    if device == "cuda":
        torch.cuda.synchronize()
    write_tensor(os.path.join(data, "cuda_out.bin"), cand.reshape(-1))
    write_tensor(os.path.join(data, "torch_out.bin"), orig.reshape(-1))
    return {"cuda_out": "cuda_out.bin", "torch_out": "torch_out.bin", "elements": int(cand.numel())}


class CheckingProxy:
    """Wraps the candidate proxy during the checked step: every routed call is also computed by the
    original op on the same activations, and both outputs are saved for the C++ check."""

    def __init__(self, proxy, originals: Dict[str, Any], out_dir: str, max_calls: int) -> None:
        self.proxy = proxy
        self.originals = originals
        self.out_dir = out_dir
        self.max_calls = max_calls
        self.active = False
        self.saved: List[Dict[str, Any]] = []

    def forward(self, *args, **kwargs):
        y = self.proxy.forward(*args, **kwargs)
        if self.active and len(self.saved) < self.max_calls:
            import torch
            op = {"linear": "linear", "conv1d": "conv1d", "conv2d": "conv2d"}.get(self.proxy.family, "matmul")
            with torch.inference_mode():
                ref = self.originals[op](*args, **kwargs)
            n = len(self.saved)
            os.makedirs(self.out_dir, exist_ok=True)
            cf, of = f"{n}_candidate.bin", f"{n}_original.bin"
            write_tensor(os.path.join(self.out_dir, cf), y.reshape(-1))
            write_tensor(os.path.join(self.out_dir, of), ref.reshape(-1))
            self.saved.append({"call": n, "candidate": cf, "original": of, "elements": int(y.numel())})
        return y


def _rel_err(a, b) -> Optional[float]:
    import torch
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or a.shape != b.shape:
        return None
    d = (a.double() - b.double()).norm()
    n = b.double().norm()
    return float(d / n) if float(n) > 0 else float(d)


def run_workload(spec, proxy, device: str, out: str, originals) -> Dict[str, Any]:
    """Steps 3-6."""
    import torch
    from .swap import OpSwap, SwapTarget
    from .swap_view import SpecMatcher
    from .workloads import get
    model, inputs = get(spec["workload"]).build(spec["config"], device=device)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    with torch.inference_mode():
        plain = model(*inputs)
    sync()
    matcher = SpecMatcher(spec)
    checking = CheckingProxy(proxy, originals, os.path.join(out, "calls"), int(spec.get("max_checked_calls", 8)))
    target = SwapTarget(spec["op"]["family"], (), checking, name=spec.get("name", "candidate"), match=matcher,
                        ops=matcher.ops)
    log = os.path.join(out, "dispatch.jsonl")
    if os.path.exists(log):
        os.remove(log)
    steps: List[Dict[str, Any]] = []
    warmup, region = int(spec["warmup"]), int(spec["region_iters"])
    swapped = None
    with OpSwap([target], log) as sw, torch.inference_mode():
        for i in range(warmup + region):
            if i == warmup and device == "cuda":
                sync()
                torch.cuda.profiler.start()
            sw.step = i
            checking.active = i == 0
            before = (len(sw.records), len(sw.routed()), proxy.launches)
            t0 = time.perf_counter()
            y = model(*inputs)
            sync()
            if i == 0:
                swapped = y
            recs = sw.records[before[0]:]
            steps.append({"step": i, "phase": "window" if i >= warmup else "warmup",
                          "calls_logged": len(recs), "routed": len(sw.routed()) - before[1],
                          "near_misses": sum(1 for r in recs if r["near_miss"]),
                          "candidate_launches": proxy.launches - before[2],
                          "seconds": round(time.perf_counter() - t0, 4)})
        if device == "cuda":
            torch.cuda.profiler.stop()
    near = sorted({r["near_miss"] for r in sw.records if r["near_miss"]})
    return {"steps": steps, "calls_checked": checking.saved, "near_miss_reasons": near,
            "policy_output_rel_err_vs_unswapped": _rel_err(swapped, plain)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vxsynth_torch.swap_run",
                                 description="Run a compiled candidate inside its workload (operator swap).")
    ap.add_argument("--spec", required=True, help="swap_spec.json written by the ncu backend")
    ap.add_argument("--lib", required=True, help="candidate shared library (codegen's C ABI)")
    ap.add_argument("--out", required=True, help="output folder: dispatch.jsonl, swap_result.json, calls/")
    ap.add_argument("--data", default=None, help="folder with the sampled inputs (check's <operand>.bin)")
    ap.add_argument("--device", default="auto", choices=("auto", "cuda", "cpu"))
    a = ap.parse_args(argv)
    import torch
    import torch.nn.functional as F
    from . import provenance
    from .swap_candidate import CandidateError, CandidateLibrary, CandidateProxy
    try:
        spec = load_spec(a.spec)
    except SpecError as e:
        print(f"swap_run: error: {e}", file=sys.stderr)
        return EXIT_ARGS
    device = ("cuda" if torch.cuda.is_available() else "cpu") if a.device == "auto" else a.device
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    apply_tf32(spec["tf32"])
    originals = {"linear": F.linear, "matmul": torch.matmul, "bmm": torch.bmm, "conv1d": F.conv1d,
                 "conv2d": F.conv2d}
    result: Dict[str, Any] = {"schema": "vxsynth.swap_result/1", "workload": spec["workload"],
                              "config": spec["config"], "device": device, "library": a.lib,
                              "warmup": spec["warmup"], "region_iters": spec["region_iters"],
                              "reference_launches_per_step": spec["reference_launches_per_step"], "failure": ""}
    t0 = time.time()
    try:
        proxy = CandidateProxy(CandidateLibrary(a.lib, spec["op"]["family"]), spec)
        result["workspace_bytes"] = proxy.ws_bytes
        if a.data:
            result["sampled"] = sampled_check(spec, proxy, a.data, device, originals)
        result.update(run_workload(spec, proxy, device, out, originals))
    except (CandidateError, OSError) as e:
        result["failure"] = f"candidate: {e}"
    except SpecError as e:
        result["failure"] = f"spec: {e}"
    result["seconds"] = round(time.time() - t0, 2)
    result["provenance"] = provenance.collect([sys.executable, "-m", "vxsynth_torch.swap_run"] + list(argv or sys.argv[1:]))
    path = os.path.join(out, "swap_result.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    if result["failure"]:
        print(f"swap_run: {result['failure']}", file=sys.stderr)
        return EXIT_CANDIDATE
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
