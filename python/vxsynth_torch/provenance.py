"""Provenance of every GPU figure (CONTRIBUTING: card, driver, CUDA/ncu/torch versions, command, date)."""
from __future__ import annotations

import datetime as _dt
import platform
import shlex
import subprocess
import sys
from typing import Any, Dict, Optional, Sequence


def _run(cmd: Sequence[str]) -> Optional[str]:
    try:
        r = subprocess.run(list(cmd), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return (r.stdout or r.stderr).strip() or None


def collect(command: Sequence[str], ncu: Optional[str] = None, extra: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Dict with gpu, compute capability, driver, CUDA runtime, nvcc, ncu, torch, cuDNN versions, TF32
    flags, command line, UTC date, clock/cache control. Missing tools give null, never an exception."""
    import torch
    p: Dict[str, Any] = {
        "schema": "vxsynth.provenance/1",
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": " ".join(shlex.quote(c) for c in command),
        "python": sys.version.split()[0],
        "host_arch": platform.machine(),
        "torch": torch.__version__,
        "cuda_runtime": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
        "tf32": {"matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
                 "cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
                 "float32_matmul_precision": torch.get_float32_matmul_precision()},
        "clock_control": "none",
        "cache_control": "all",
    }
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        p.update({"gpu": props.name, "compute_capability": f"{props.major}.{props.minor}",
                  "sm_count": props.multi_processor_count,
                  "gpu_memory_bytes": props.total_memory})
        smi = _run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,clocks.max.mem", "--format=csv,noheader"])
        if smi:
            parts = [x.strip() for x in smi.splitlines()[0].split(",")]
            p["driver"] = parts[0]
            p["clocks_max"] = parts[1:] if len(parts) > 1 else None
    else:
        p.update({"gpu": None, "compute_capability": None, "driver": None})
    nvcc = _run(["nvcc", "--version"]) or _run(["/usr/local/cuda/bin/nvcc", "--version"])
    p["nvcc"] = nvcc.splitlines()[-1] if nvcc else None
    if ncu:
        v = _run([ncu, "--version"])
        p["ncu"] = v.splitlines()[-1] if v else None
        p["ncu_path"] = ncu
    else:
        p["ncu"] = None
    if extra:
        p.update(extra)
    return p
