"""Nsight Compute (ncu) command lines, output checks and raw-CSV reading for the profiling driver.

The metric list is the C++ metric table's (`required_metrics`, from `vxsynth metrics --json`). Facts from
docs/ncu.md: CLI flags §4,
raw CSV layout §5.1 (preamble, header starting with "ID", units row, quoted thousands separators, n/a),
silent omission of unknown metrics §1 (so every requested metric's column is checked here).
"""
from __future__ import annotations

import csv
import io
import re
import shutil
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from . import rules

def required_metrics(arch: str = "sm_90") -> List[str]:
    """The ncu metrics the C++ signature reads on `arch` (`vxsynth metrics --ncu-list`): primary names."""
    return rules.ncu_metrics(arch)


def capture_metrics(arch: str = "sm_90") -> List[str]:
    """The --metrics list a capture requests: the required metrics, their fallbacks (older ncu names the
    importer also accepts) and the recorded extras, from the C++ metric table (`vxsynth metrics --json`)."""
    return list(rules.metrics(arch)["capture_metrics"])


def required_columns(arch: str = "sm_90") -> List[Tuple[str, Optional[str]]]:
    """(name, fallback) per required metric: a CSV has the column if it has either (the C++ importer's rule)."""
    return [(c["name"], c["fallback"]) for c in rules.metrics(arch)["required_columns"]]


def tensor_pipe_rule(arch: str = "sm_90") -> Tuple[str, float]:
    """(tensor-pipe metric, threshold %) above which a kernel is tensor-core: the C++ signature's
    tensor_mfu counter and threshold (core/include/vxsynth/core/reference.h, docs/signature.md)."""
    t = rules.metrics(arch)["tensor_pipe"]
    return t["metrics"][0], float(t["threshold_pct"])


def tensor_pipe_pct(row: Dict[str, str], arch: str = "sm_90") -> float:
    """The tensor-pipe % of an ncu row: the C++ tensor_mfu counter, or its fallback name when the row
    has no column of the primary one (captures made with the older list); 0 when neither is there."""
    t = rules.metrics(arch)["tensor_pipe"]
    for name in (t["metrics"][0], t["fallbacks"][0]):
        if name and name in row:
            return number(row[name]) or 0.0
    return 0.0


def tensor_path_metrics(arch: str = "sm_90") -> List[str]:
    """The tensor FLOP counters (sm__ops_path_tensor_src_*) of the C++ arithmetic-intensity row."""
    row = next(m for m in rules.metrics(arch)["metrics"] if m["key"] == "arith_intensity")
    return [t for t in row["ncu_numerator"] if t.startswith("sm__ops_path_tensor_src_")]


def __getattr__(name: str):
    """METRICS_SM90 (the capture list), TENSOR_PIPE_METRIC and TENSOR_PIPE_THRESHOLD_PCT, read from the C++ side."""
    if name == "METRICS_SM90":
        return tuple(capture_metrics("sm_90"))
    if name == "TENSOR_PIPE_METRIC":
        return tensor_pipe_rule("sm_90")[0]
    if name == "TENSOR_PIPE_THRESHOLD_PCT":
        return tensor_pipe_rule("sm_90")[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class NcuError(RuntimeError):
    """ncu could not produce usable data; the message says why and what to do."""


class NcuPermissionError(NcuError):
    """ERR_NVGPUCTRPERM: the user may not read GPU performance counters."""


class NcuMissingMetricError(NcuError):
    """A requested metric has no column in the raw CSV (ncu drops unknown names silently, §1)."""


#: Known failure signatures in ncu's output -> (exception type, explanation). One row per failure.
FAILURES: Tuple[Tuple[str, type, str], ...] = (
    ("ERR_NVGPUCTRPERM", NcuPermissionError,
     "ncu lacks permission to read GPU performance counters (ERR_NVGPUCTRPERM): run as root, or set the "
     "driver option NVreg_RestrictProfilingToAdminUsers=0; see "
     "https://developer.nvidia.com/ERR_NVGPUCTRPERM"),
    ("LibraryNotLoaded", NcuError,
     "ncu could not initialise the profiler (LibraryNotLoaded); seen on gVisor sandboxes, which expose no "
     "hardware counters (KINDS.md, 2026-11-04): use a Firecracker machine"),
    ("No kernels were profiled", NcuError,
     "ncu profiled no kernel: the kernel-name filter or launch window matched nothing"),
)


def find_ncu(explicit: Optional[str] = None) -> Optional[str]:
    """Path of the ncu executable: `explicit`, else PATH, else /usr/local/cuda/bin/ncu; None if absent."""
    for cand in ([explicit] if explicit else []) + ["ncu", "/usr/local/cuda/bin/ncu"]:
        p = shutil.which(cand)
        if p:
            return p
    return None


def check_output(text: str, where: str = "ncu") -> None:
    """Raise the matching NcuError if ncu's output contains a known failure signature."""
    for needle, exc, why in FAILURES:
        if needle in text:
            raise exc(f"{where}: {why}")


def kernel_regex(base_names: Iterable[str]) -> str:
    """`regex:^(a|b|...)$` over function base names (used with --kernel-name-base function)."""
    names = sorted(set(base_names))
    if not names:
        raise ValueError("no kernel names to filter on")
    return "regex:^(" + "|".join(re.escape(n) for n in names) + ")$"


def profile_command(ncu: str, target: Sequence[str], report: str, kernel_filter: str,
                    metrics: Optional[Sequence[str]] = None, launch_skip: int = 1, launch_count: int = 1,
                    per_launch_config: bool = True, from_start: bool = False,
                    nvtx_include: Optional[str] = None, kill_after: bool = False) -> List[str]:
    """ncu command profiling `target` (argv). Clock control none (METHOD.md: leave clocks alone) and the
    default cache control `all` (caches flushed before each pass, §2.2). With per_launch_config the
    skip/count apply separately to each (grid, block, shared memory) configuration (ncu --filter-mode)."""
    cmd = [ncu, "--target-processes", "all", "--clock-control", "none", "--cache-control", "all",
           "--profile-from-start", "on" if from_start else "off",
           "--kernel-name-base", "function", "-k", kernel_filter,
           "--launch-skip", str(launch_skip), "--launch-count", str(launch_count),
           "--metrics", ",".join(capture_metrics() if metrics is None else metrics), "--import-sass", "no", "-f", "-o", report]
    if per_launch_config:
        cmd[1:1] = ["--filter-mode", "per-launch-config"]
    if nvtx_include:
        cmd[1:1] = ["--nvtx", "--nvtx-include", nvtx_include]
    if kill_after:
        cmd[1:1] = ["--kill", "yes"]
    return cmd + list(target)


def export_command(ncu: str, report: str, page: str = "raw") -> List[str]:
    """ncu --import REPORT --csv --page raw|details --print-units base (units must be forced, §4)."""
    return [ncu, "--import", report, "--csv", "--page", page, "--print-units", "base"]


def parse_raw_csv(text: str, where: str = "<ncu csv>") -> Tuple[List[str], List[str], List[Dict[str, str]]]:
    """Split an ncu `--page raw` CSV into (header, units, rows as dicts keyed by column name).
    Lines before the first line starting with '"ID",' (==PROF== lines, program output) are skipped.
    Raises NcuError naming `where` if there is no header or no units row."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID",')), None)
    if start is None:
        raise NcuError(f"{where}: no ncu raw-CSV header (a line starting with '\"ID\",')")
    rd = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    if len(rd) < 2:
        raise NcuError(f"{where}: header without units row")
    header, units = rd[0], rd[1]
    rows = [dict(zip(header, r)) for r in rd[2:] if r]
    return header, units, rows


def missing_metrics(header: Sequence[str], metrics: Optional[Sequence[str]] = None) -> List[str]:
    """Metrics without a column in `header`: of `metrics` when given, else the required columns
    (`required_columns`: name or fallback)."""
    have = set(header)
    if metrics is not None:
        return [m for m in metrics if m not in have]
    return [n for n, fb in required_columns() if n not in have and (fb is None or fb not in have)]


def require_metrics(header: Sequence[str], metrics: Optional[Sequence[str]] = None, where: str = "<ncu csv>") -> None:
    """Raise NcuMissingMetricError naming every requested metric without a column."""
    miss = missing_metrics(header, metrics)
    if miss:
        raise NcuMissingMetricError(f"{where}: {len(miss)} requested metric(s) have no column (ncu drops "
                                    f"unknown or unsupported names silently): {', '.join(miss)}")


def number(s: str) -> Optional[float]:
    """'2,097,152' -> 2097152.0; 'n/a' or '' -> None."""
    s = (s or "").strip().replace(",", "")
    if s in ("", "n/a"):
        return None
    try:
        return float(s)
    except ValueError:
        return None


def launch_tuple(s: str) -> Tuple[int, ...]:
    """'(384, 1, 1)' -> (384, 1, 1)."""
    return tuple(int(x) for x in re.findall(r"\d+", s or ""))
