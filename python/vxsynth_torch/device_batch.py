"""Runs several capture steps in one device call under one deadline, packing each step's folder into
$OUT/<step>.tar.gz as soon as it ends (so a run stopped at its limit still returns the earlier steps).

usage: python -m vxsynth_torch.device_batch --out OUTDIR --deadline SECONDS STEP [STEP ...]
steps: env, ops (capture_ops), act, diffusion_policy, pi0 (profile driver, full config, top 5), swap.
If `ops` finds that ncu cannot read counters, later steps run with --no-ncu.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tarfile
import time

WORK = "/tmp/vx"
#: Per-step wall-clock caps in seconds (the step also stops at the batch deadline).
CAPS = {"extra_check": 200, "script": 240, "env": 30, "ops": 150, "act": 170, "diffusion_policy": 220, "pi0": 260, "swap": 200, "pytest_gpu": 240}


def step_command(step: str, d: str, no_ncu: bool, ncu_timeout: float) -> list:
    py = [sys.executable, "-m"]
    if step == "env":
        return ["bash", "-c", "nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm "
                "--format=csv; which ncu nvcc; ncu --version; nvcc --version; uname -r; "
                f"{sys.executable} -c 'import torch; print(torch.__version__, torch.version.cuda, "
                "torch.backends.cudnn.version(), torch.cuda.get_device_name(0))'"]
    if step == "ops":
        return py + ["vxsynth_torch.capture_ops", "--out", d] + (["--no-ncu"] if no_ncu else [])
    if step == "swap":
        return py + ["vxsynth_torch.swap_demo", "--out", d]
    if step == "script":
        ex = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "act_swapped.py")
        return py + ["vxsynth_torch.profile", "--out", d, "--nvtx-range", "act_step", "--top", "5",
                     "--ncu-timeout", str(int(ncu_timeout)), "--", "python", ex]
    if step == "extra_check":
        return py + ["vxsynth_torch.profile", "act", "--out", d, "--config", "tiny", "--top", "6",
                     "--ncu-extra-all", "--ncu-timeout", str(int(ncu_timeout))]
    if step == "pytest_gpu":
        return py + ["pytest", "-q", "-m", "gpu", os.path.join(os.path.dirname(os.path.dirname(__file__)), "tests"),
                     "--junitxml", os.path.join(d, "junit.xml")]
    return py + ["vxsynth_torch.profile", step, "--out", d, "--config", "full", "--top", "5",
                 "--ncu-timeout", str(int(ncu_timeout))] + (["--no-ncu"] if no_ncu else [])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline", type=float, required=True, help="seconds from start for all steps")
    ap.add_argument("--min-left", type=float, default=60, help="skip a step if fewer seconds remain")
    ap.add_argument("steps", nargs="+")
    a = ap.parse_args(argv)
    t0 = time.time()
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    no_ncu = False
    summary = []
    for step in a.steps:
        left = a.deadline - (time.time() - t0)
        if left < a.min_left:
            summary.append(f"{step}: SKIPPED ({left:.0f} s left)")
            continue
        d = os.path.join(WORK, step)
        os.makedirs(d, exist_ok=True)
        left = min(left, CAPS.get(step, left))
        cmd = step_command(step, d, no_ncu, max(30.0, left - 25))
        t = time.time()
        with open(os.path.join(d, "step.log"), "w") as log:
            log.write("$ " + " ".join(cmd) + "\n")
            log.flush()
            p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                 env={**os.environ, "PYTHONUNBUFFERED": "1", "VXSYNTH_DISPATCH_DIR": d})
            try:
                rc = p.wait(timeout=max(10.0, left - 10))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                rc = "timeout"
        if step == "ops" and rc == 3:
            no_ncu = True
        line = f"{step}: rc={rc} {time.time() - t:.0f} s"
        summary.append(line)
        print(line, flush=True)
        with open(os.path.join(d, "step.log")) as f:
            tail = f.read()[-3000:]
        print(tail, flush=True)
        with tarfile.open(os.path.join(a.out, f"{step}.tar.gz"), "w:gz") as tf:
            tf.add(d, arcname=step)
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write("\n".join(summary) + "\n")
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
