"""Profiling driver: `python -m vxsynth_torch.profile WORKLOAD --out DIR` or
`python -m vxsynth_torch.profile --out DIR [--nvtx-range R] -- python my_script.py ARGS`.

Steps (paper §3.1-3.2, §4.1; facts in docs/ncu.md):
 1. build the workload on the GPU (random weights, batch 1), run `--warmup` inferences;
 2. torch.profiler trace (CPU+CUDA, record_shapes) of one steady-state inference -> trace.json.gz;
 3. rank kernels by GPU time with the C++ rule (name, grid, block, op signature; `vxsynth hot --json`)
    -> hot_kernels.json (top `--top`, cumulative share);
 4. one ncu run (metric list §0.1, --clock-control none, --kernel-name-base function, a regex over the hot
    kernels' names, --filter-mode per-launch-config --launch-skip 1 --launch-count 1, profiling only
    inside a cudaProfilerStart/Stop window around `--region-iters` steady-state inferences) ->
    ncu_raw.csv; the C++ join (`vxsynth profile import`) says which hot operator kernels it gives no
    signature (ncu keys per-launch-config by grid/block/shared memory, not by name or shape, so the
    same kernel at several shapes shares one row, which is then joined to none of them); each gets
    one more run with a name-exact filter and --launch-skip at its first launch -> ncu_raw_extra<N>.csv,
    listed in ncu_extra.json (rank, group key, file), which the importer reads;
 5. provenance.json; then, with the C++ `vxsynth` binary (rules.find_vxsynth),
    `vxsynth profile import --trace ... --ncu ... --provenance ... -o bundle.json`.
Ranking, kernel base names and the ncu metric list come from the C++ `vxsynth` executable (`rules`).
Exit status: 0 ok, 2 bad arguments, 3 ncu failure (permission, missing metric, timeout), 4 trace failure,
5 no usable `vxsynth` executable (rules.RulesError says where it looked).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

from . import ncu as ncu_mod
from . import provenance, rules, trace as trace_mod

EXIT_OK, EXIT_ARGS, EXIT_NCU, EXIT_TRACE, EXIT_RULES = 0, 2, 3, 4, 5
CONFIGS = ("full", "tiny")


class DriverError(Exception):
    def __init__(self, msg: str, code: int) -> None:
        super().__init__(msg)
        self.code = code


def is_operator(h: Dict[str, Any]) -> bool:
    """A hot kernel a suite rebuilds: its context (the C++ side's, `vxsynth hot --json`) names an operator
    (op other than 'other') and the kernel-name rules give it the role 'main' (not a helper)."""
    c = h.get("context") or {}
    return c.get("role") == "main" and c.get("op", "other") != "other"


def cut_at_operators(hot: List[Dict[str, Any]], n: int) -> List[Dict[str, Any]]:
    """The ranked groups down to and including the n-th operator kernel (all of them when there are fewer)."""
    seen = 0
    for i, h in enumerate(hot):
        seen += 1 if is_operator(h) else 0
        if seen == n:
            return hot[:i + 1]
    return list(hot)


def build_parser() -> argparse.ArgumentParser:
    from .workloads import WORKLOADS
    p = argparse.ArgumentParser(
        prog="python -m vxsynth_torch.profile",
        description="Profile a workload on the GPU: torch trace, hot kernels, ncu counters, provenance.",
        epilog="User script: python -m vxsynth_torch.profile --out DIR [--nvtx-range R] -- python my_script.py")
    p.add_argument("workload", nargs="?", help=f"one of {', '.join(sorted(WORKLOADS))} (omit with -- SCRIPT)")
    p.add_argument("--out", help="output folder (created)")
    p.add_argument("--config", default="full", help="full (real sizes) or tiny (CPU smoke test)")
    p.add_argument("--top", type=int, default=5, help="number of hot kernels (default 5, paper §4.1)")
    p.add_argument("--top-operators", type=int, default=0,
                   help="instead of --top: keep hot kernels down to the N-th operator kernel (a benchmark suite's "
                        "top N, docs/suite.md); the helpers and other kernels ranked above it are kept for coverage")
    p.add_argument("--warmup", type=int, default=2, help="warm-up inferences before measuring (default 2)")
    p.add_argument("--region-iters", type=int, default=2,
                   help="inferences inside the ncu window (default 2: launch 1 of each config is skipped)")
    p.add_argument("--device", default="auto", help="auto, cuda or cpu (cpu: trace only, no ranking/ncu)")
    p.add_argument("--no-ncu", action="store_true", help="skip the ncu step")
    p.add_argument("--ncu", default=None, help="ncu executable (default: PATH, /usr/local/cuda/bin/ncu)")
    p.add_argument("--ncu-timeout", type=float, default=420.0, help="seconds per ncu run (default 420)")
    p.add_argument("--nvtx-range", default=None, help="script mode: NVTX push/pop range to profile")
    p.add_argument("--ncu-target", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--ncu-extra-all", action="store_true", help=argparse.SUPPRESS)  # test: force per-kernel runs
    return p


def parse_args(argv: Sequence[str]):
    """Parse argv (without program name). Everything after the first '--' is the user's command.
    Raises DriverError(code 2) with a clear message on bad arguments."""
    from .workloads import WORKLOADS
    argv = list(argv)
    script: List[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, script = argv[:i], argv[i + 1:]
        if not script:
            raise DriverError("nothing after '--': give the command to profile, e.g. -- python my_script.py", EXIT_ARGS)
    p = build_parser()
    try:
        a = p.parse_args(argv)
    except SystemExit as e:  # argparse printed its message (or the help, with code 0)
        if e.code in (0, None):
            raise
        raise DriverError("invalid arguments (see message above)", EXIT_ARGS) from e
    a.script = script
    if a.workload and script:
        raise DriverError("give either a WORKLOAD or '-- COMMAND', not both", EXIT_ARGS)
    if not a.workload and not script:
        raise DriverError(f"missing WORKLOAD (one of {', '.join(sorted(WORKLOADS))}) or '-- COMMAND'", EXIT_ARGS)
    if a.workload and a.workload not in WORKLOADS:
        raise DriverError(f"unknown workload '{a.workload}'; known: {', '.join(sorted(WORKLOADS))}", EXIT_ARGS)
    if a.config not in CONFIGS:
        raise DriverError(f"--config must be one of {', '.join(CONFIGS)}, got '{a.config}'", EXIT_ARGS)
    if a.top < 1:
        raise DriverError(f"--top must be >= 1, got {a.top}", EXIT_ARGS)
    if a.top_operators < 0:
        raise DriverError(f"--top-operators must be >= 0, got {a.top_operators}", EXIT_ARGS)
    if a.warmup < 0 or a.region_iters < 1:
        raise DriverError("--warmup must be >= 0 and --region-iters >= 1", EXIT_ARGS)
    if a.device not in ("auto", "cuda", "cpu"):
        raise DriverError(f"--device must be auto, cuda or cpu, got '{a.device}'", EXIT_ARGS)
    if a.nvtx_range and not script:
        raise DriverError("--nvtx-range applies to '-- COMMAND' mode only", EXIT_ARGS)
    if not a.out and not a.ncu_target:
        raise DriverError("--out DIR is required", EXIT_ARGS)
    return a


# ----------------------------------------------------------------------------------------- workload side
def _device(a) -> str:
    import torch
    if a.device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if a.device == "cuda" and not torch.cuda.is_available():
        raise DriverError("--device cuda but torch sees no CUDA device", EXIT_ARGS)
    return a.device


def _load(a, device: str):
    import torch
    from .workloads import get
    mod = get(a.workload)
    model, inputs = mod.build(a.config, device=device)
    def run():
        with torch.inference_mode():
            return model(*inputs)
    return model, run


def _sync(device: str) -> None:
    import torch
    if device == "cuda":
        torch.cuda.synchronize()


def ncu_target(a) -> int:
    """Child process under ncu: warm up, then cudaProfilerStart, `region_iters` inferences, Stop."""
    import torch
    device = _device(a)
    _, run = _load(a, device)
    for _ in range(a.warmup):
        run()
    _sync(device)
    torch.cuda.profiler.start()
    for _ in range(a.region_iters):
        run()
    _sync(device)
    torch.cuda.profiler.stop()
    return EXIT_OK


def trace_workload(a, device: str, out: str) -> Dict[str, Any]:
    """Warm up, time `timed` inferences, then record one inference with torch.profiler."""
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function
    t0 = time.time()
    _, run = _load(a, device)
    build_s = time.time() - t0
    for _ in range(a.warmup):
        run()
    _sync(device)
    lat = []
    for _ in range(3 if a.workload != "diffusion_policy" or a.config == "tiny" else 1):
        t = time.perf_counter()
        run()
        _sync(device)
        lat.append((time.perf_counter() - t) * 1e3)
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=acts, record_shapes=True) as prof:
        with record_function("vxsynth/iteration"):
            run()
        _sync(device)
    _write_trace(prof, out)
    return {"build_s": round(build_s, 3), "latency_ms_eager": [round(x, 3) for x in lat],
            "warmup": a.warmup}


def _write_trace(prof, out: str) -> str:
    raw = os.path.join(out, "trace.json")
    prof.export_chrome_trace(raw)
    gz = raw + ".gz"
    with open(raw, "rb") as f, gzip.open(gz + ".tmp", "wb", compresslevel=6) as g:
        shutil.copyfileobj(f, g)
    os.replace(gz + ".tmp", gz)
    os.remove(raw)
    return gz


# ----------------------------------------------------------------------------------------- ncu side
def _run_ncu(cmd: List[str], log_path: str, timeout: float) -> str:
    """Run ncu in its own process group; on timeout kill that group. Returns combined output."""
    with open(log_path, "a", encoding="utf-8") as log:
        log.write("$ " + " ".join(cmd) + "\n")
        log.flush()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        try:
            text, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            text, _ = proc.communicate()
            log.write(text or "")
            raise DriverError(f"ncu exceeded --ncu-timeout {timeout:.0f} s (log: {log_path}); "
                              "lower --region-iters or --top", EXIT_NCU)
        log.write(text or "")
    ncu_mod.check_output(text or "", where=f"ncu (log {log_path})")
    if proc.returncode != 0:
        raise DriverError(f"ncu exited with status {proc.returncode} (log: {log_path})", EXIT_NCU)
    return text or ""


def _export(ncu: str, report: str, csv_path: str, page: str = "raw") -> str:
    r = subprocess.run(ncu_mod.export_command(ncu, report + ".ncu-rep", page), capture_output=True, text=True,
                       timeout=600)
    if r.returncode != 0:
        raise DriverError(f"ncu --import {report}.ncu-rep failed: {r.stderr.strip()[:500]}", EXIT_NCU)
    with open(csv_path + ".tmp", "w", encoding="utf-8") as f:
        f.write(r.stdout)
    os.replace(csv_path + ".tmp", csv_path)
    return r.stdout


def _supports_filter_mode(ncu: str) -> bool:
    r = subprocess.run([ncu, "--help"], capture_output=True, text=True, timeout=60)
    return "per-launch-config" in (r.stdout + r.stderr)


def classify(row: Dict[str, str]) -> Dict[str, Any]:
    """Engine class and precision path from counters (docs/ncu.md §7.6: counters first), with the C++
    signature's rule (docs/signature.md, "Engine class"; counter names and threshold from `vxsynth metrics
    --json`): tensor core if any sm__ops_path_tensor_src_* count is non-zero (HFMA2.MMA constant building
    does not add tensor-path FLOPs) or the tensor-pipe activity exceeds the threshold (5 %); a pipe-%
    threshold alone misses small tensor-core kernels that occupy few SMs (seen on H200: a 16-CTA wmma bmm
    at 1.4 %)."""
    n = lambda m: ncu_mod.number(row.get(m, "")) or 0.0
    _, threshold = ncu_mod.tensor_pipe_rule()
    pipe = ncu_mod.tensor_pipe_pct(row)
    paths = [(p[len("sm__ops_path_tensor_src_"):-len(".sum")], n(p)) for p in ncu_mod.tensor_path_metrics()]
    tpath = max(paths, key=lambda x: x[1])
    tensor = tpath[1] > 0 or pipe > threshold
    f32 = sum(n(f"smsp__sass_thread_inst_executed_op_{o}_pred_on.sum") for o in ("fadd", "fmul", "ffma"))
    f16 = sum(n(f"smsp__sass_thread_inst_executed_op_{o}_pred_on.sum") for o in ("hadd", "hmul", "hfma"))
    f64 = sum(n(f"smsp__sass_thread_inst_executed_op_{o}_pred_on.sum") for o in ("dadd", "dmul", "dfma"))
    if tensor and tpath[1] > 0:
        labels = {"bf16_dst_fp32": "bf16 x bf16 -> fp32", "fp16": "fp16", "tf32_dst_fp32": "tf32 -> fp32",
                  "fp64": "fp64", "fp8": "fp8", "int8": "int8"}
        prec = f"{labels.get(tpath[0], tpath[0])} (tensor)"
    elif tensor:
        prec = "tensor (no FLOP-path counter)"
    elif f32 > 0 or f16 > 0 or f64 > 0:
        prec = max((("fp32 (SIMT)", f32), ("fp16 (SIMT)", f16), ("fp64 (SIMT)", f64)), key=lambda x: x[1])[0]
    else:
        prec = "no floating-point ops (data movement / integer)"
    return {"engine_class": "tensor core" if tensor else "SIMT", "precision_path": prec,
            "tensor_pipe_pct": pipe}


def ncu_workload(a, hot: List[Dict[str, Any]], out: str, ncu: str, target: List[str],
                 nvtx_include: Optional[str] = None, data: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """One ncu run over all hot kernels (per-launch-config, skip 1, count 1); then, for each hot kernel
    without a row of the same kernel (trace.same_kernel) and launch geometry, one run with a `^base$`
    filter, global filter mode, --launch-skip = its launch index among same-base launches of one
    inference (from the trace), --launch-count 1."""
    log = os.path.join(out, "ncu.log")
    extra_list = os.path.join(out, "ncu_extra.json")  # core::kExtraCapturesFile, read by the importer
    if os.path.exists(extra_list):
        os.remove(extra_list)  # a previous run's captures do not belong to this trace
    per_cfg = _supports_filter_mode(ncu)
    report = os.path.join(out, "ncu")
    cmd = ncu_mod.profile_command(ncu, target, report, ncu_mod.kernel_regex(h["base_name"] for h in hot),
                                  per_launch_config=per_cfg, from_start=nvtx_include is not None,
                                  nvtx_include=nvtx_include)
    runs = [{"command": cmd, "csv": "ncu_raw.csv", "filter_mode": "per-launch-config" if per_cfg else "global"}]
    t = time.time()
    _run_ncu(cmd, log, a.ncu_timeout)
    runs[0]["seconds"] = round(time.time() - t, 1)
    text = _export(ncu, report, os.path.join(out, "ncu_raw.csv"))
    header, _, rows = ncu_mod.parse_raw_csv(text, "ncu_raw.csv")
    ncu_mod.require_metrics(header, where=os.path.join(out, "ncu_raw.csv"))
    matched: Dict[int, Dict[str, Any]] = {}

    def match(rows, csvname):
        rules.kernel_names([r.get("Kernel Name", "") for r in rows] + [h["name"] for h in hot])  # one C++ call
        for i, h in enumerate(hot):
            if i in matched:
                continue
            for r in rows:
                if (ncu_mod.launch_tuple(r.get("Grid Size", "")) == tuple(h["grid"])
                        and ncu_mod.launch_tuple(r.get("Block Size", "")) == tuple(h["block"])
                        and trace_mod.same_kernel(h["name"], r.get("Kernel Name", ""))):
                    matched[i] = {"csv": csvname, "id": r.get("ID"), "ncu_kernel_name": r.get("Kernel Name"),
                                  **classify(r),
                                  "gpu__time_duration_ns": ncu_mod.number(r.get("gpu__time_duration.sum", ""))}
                    break
    match(rows, "ncu_raw.csv")
    # Which hot kernels the main capture cannot give a signature: the C++ join decides (a row whose
    # launch geometry several groups share is not joined, core/hot.h join_ncu).
    missing = [i for i in range(len(hot)) if getattr(a, "ncu_extra_all", False)]
    if not missing and data is not None and nvtx_include is None:
        bundle = import_bundle(out, a.workload or "script", len(hot))
        if bundle is not None:
            signed = {k["rank"] for k in bundle["kernels"] if k.get("signature")}
            # Operator kernels only: helpers count in coverage and are not rebuilt (docs/suite.md).
            missing = [i for i, h in enumerate(hot) if h["rank"] not in signed and is_operator(h)]
    extras: List[Dict[str, Any]] = []
    for i in missing:
        h = hot[i]
        matched.pop(i, None)
        if data is None or nvtx_include is not None:
            continue
        idx, n = h.get("base_launch_index", -1), h.get("base_launches", 0)
        if idx < 0:
            continue
        name = f"ncu_raw_extra{len(extras) + 1}.csv"
        rep = os.path.join(out, f"ncu_extra{len(extras) + 1}")
        cmd = ncu_mod.profile_command(ncu, target, rep, ncu_mod.kernel_regex([h["base_name"]]),
                                      launch_skip=idx, launch_count=1, per_launch_config=False)
        t = time.time()
        try:
            _run_ncu(cmd, log, a.ncu_timeout)
            text = _export(ncu, rep, os.path.join(out, name))
            header, _, rows2 = ncu_mod.parse_raw_csv(text, name)
            ncu_mod.require_metrics(header, where=os.path.join(out, name))
        except (DriverError, ncu_mod.NcuError) as e:
            runs.append({"command": cmd, "csv": None, "for_rank": h["rank"], "error": str(e)})
            continue
        runs.append({"command": cmd, "csv": name, "for_rank": h["rank"], "launch_skip": idx,
                     "same_base_launches_per_inference": n, "seconds": round(time.time() - t, 1)})
        extras.append({"rank": h["rank"], "key": h["key"], "csv": name})
        _write_json(extra_list, extras)
        if rows2:
            r = rows2[0]
            matched[i] = {"csv": name, "id": r.get("ID"), "ncu_kernel_name": r.get("Kernel Name"), **classify(r),
                          "gpu__time_duration_ns": ncu_mod.number(r.get("gpu__time_duration.sum", ""))}
    for i, h in enumerate(hot):
        h["ncu"] = matched.get(i)
    for f in os.listdir(out):  # reports are large; the CSVs carry everything the importer reads
        if f.endswith(".ncu-rep"):
            os.remove(os.path.join(out, f))
    return {"runs": runs, "rows": len(rows), "extras": extras,
            "unmatched_ranks": [h["rank"] for h in hot if h["ncu"] is None]}


def import_bundle(out: str, workload: str, top: int) -> Optional[Dict[str, Any]]:
    """`vxsynth profile import` of OUT's trace and captures into OUT/bundle.json (the C++ join and
    signatures; the importer reads the launch-exact captures listed in OUT/ncu_extra.json itself).
    None when vxsynth is not found or fails."""
    vx = rules.find_vxsynth()
    if not vx:
        return None
    cmd = [vx, "profile", "import", "--trace", os.path.join(out, "trace.json.gz"),
           "--ncu", os.path.join(out, "ncu_raw.csv"), "--provenance", os.path.join(out, "provenance.json"),
           "--top", str(top), "--workload", workload, "-o", os.path.join(out, "bundle.json")]
    r = subprocess.run(cmd, env=rules.env_for(vx))
    if r.returncode != 0:
        print(f"[profile] warning: {' '.join(cmd)} exited {r.returncode}", file=sys.stderr)
        return None
    with open(os.path.join(out, "bundle.json")) as f:
        return json.load(f)


# ----------------------------------------------------------------------------------------- script mode
def trace_script(a, out: str) -> None:
    cmd = list(a.script)
    if cmd and os.path.basename(cmd[0]).startswith("python"):
        cmd = cmd[1:]
    if not cmd:
        raise DriverError("'-- python' needs a script path", EXIT_ARGS)
    helper = [sys.executable, "-m", "vxsynth_torch._script_trace", os.path.join(out, "trace.json")]
    if a.nvtx_range:
        helper += ["--nvtx-range", a.nvtx_range]
    r = subprocess.run(helper + ["--"] + cmd, env={**os.environ, "PYTHONPATH": _pythonpath()})
    if r.returncode != 0:
        raise DriverError(f"user script failed under the tracer (status {r.returncode})", EXIT_TRACE)


def _pythonpath() -> str:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    old = os.environ.get("PYTHONPATH")
    return here + (os.pathsep + old if old else "")


def _write_json(path: str, obj: Any) -> None:
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        a = parse_args(argv)
        if a.ncu_target:
            return ncu_target(a)
        return drive(a, argv)
    except DriverError as e:
        print(f"vxsynth_torch.profile: error: {e}", file=sys.stderr)
        return e.code
    except (ncu_mod.NcuError,) as e:
        print(f"vxsynth_torch.profile: error: {e}", file=sys.stderr)
        return EXIT_NCU
    except trace_mod.TraceError as e:
        print(f"vxsynth_torch.profile: error: {e}", file=sys.stderr)
        return EXIT_TRACE
    except rules.RulesError as e:
        print(f"vxsynth_torch.profile: error: {e}", file=sys.stderr)
        return EXIT_RULES


def drive(a, argv: Sequence[str]) -> int:
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    name = a.workload or "script"
    ncu = None if a.no_ncu else ncu_mod.find_ncu(a.ncu)
    summary: Dict[str, Any] = {"schema": "vxsynth.hot_kernels/1", "workload": name, "config": a.config,
                               "trace": "trace.json.gz", "top": a.top}
    if a.workload:
        device = _device(a)
        summary["device"] = device
        summary["timing"] = trace_workload(a, device, out)
        target = [sys.executable, "-m", "vxsynth_torch.profile", a.workload, "--ncu-target", "--config", a.config,
                  "--warmup", str(a.warmup), "--region-iters", str(a.region_iters), "--device", device]
        nvtx = None
    else:
        import torch
        device = "cuda" if torch.cuda.is_available() else "cpu"
        summary["device"] = device
        summary["command"] = a.script
        trace_script(a, out)
        target = list(a.script)
        if os.path.basename(target[0]) in ("python", "python3"):
            target[0] = sys.executable  # the interpreter that runs this driver (the one holding torch)
        nvtx = f"{a.nvtx_range}/" if a.nvtx_range else None
    extra = {"workload": name, "config": a.config, "warmup_iterations": a.warmup,
             "ncu_region_iterations": a.region_iters, "ncu_filter": "per-launch-config, launch-skip 1, launch-count 1"}
    _write_json(os.path.join(out, "provenance.json"),
                provenance.collect([sys.executable, "-m", "vxsynth_torch.profile"] + list(argv), ncu, extra))
    if device != "cuda":
        summary["note"] = "ran on the CPU: the trace has no CUDA kernels, so no ranking and no ncu step"
        _write_json(os.path.join(out, "hot_kernels.json"), summary)
        print(f"[profile] {name}: CPU run, trace written to {out}/trace.json.gz (no GPU ranking)")
        return EXIT_OK
    data = trace_mod.load_trace(os.path.join(out, "trace.json.gz"))
    # --top-operators: rank every group, then cut after the N-th operator kernel.
    rank = trace_mod.rank_hot_kernels(data, a.top if not a.top_operators else 1 << 30, os.path.join(out, "trace.json.gz"),
                                      range_name=a.nvtx_range if not a.workload else None)
    summary["ranking"] = {k: v for k, v in rank.items() if k != "hot"}
    summary["hot"] = cut_at_operators(rank["hot"], a.top_operators) if a.top_operators else rank["hot"]
    summary["top"] = len(summary["hot"])
    if a.top_operators:
        summary["top_operators"] = a.top_operators
    _write_json(os.path.join(out, "hot_kernels.json"), summary)
    for h in rank["hot"]:
        print(f"[profile] {name} #{h['rank']} {h['share']*100:5.1f}% (cum {h['cumulative_share']*100:5.1f}%) "
              f"x{h['launches']} {h['op']} {h['input_dims']} {h['name'][:90]}")
    if ncu is None:
        summary["ncu"] = {"skipped": "--no-ncu" if a.no_ncu else "ncu not found"}
    else:
        os.environ["PYTHONPATH"] = _pythonpath()
        try:
            summary["ncu"] = ncu_workload(a, summary["hot"], out, ncu, target, nvtx, data)
        finally:
            _write_json(os.path.join(out, "hot_kernels.json"), summary)
        for h in summary["hot"]:
            n = h.get("ncu") or {}
            print(f"[profile] {name} #{h['rank']} ncu: {n.get('csv')} id {n.get('id')} "
                  f"{n.get('engine_class')} / {n.get('precision_path')}")
    _write_json(os.path.join(out, "hot_kernels.json"), summary)
    if ncu is None or import_bundle(out, name, len(summary["hot"])) is None:
        print("[profile] vxsynth binary not found (rules.candidates) or no ncu data: bundle not built; "
              "build it later with `vxsynth profile import` from the raw files")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
