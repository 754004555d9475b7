"""Nsight Compute (ncu) command lines, output checks and raw-CSV reading for the profiling driver.

Facts from docs/ncu-and-torch.md: metric list §0.1 (31 metrics, 16 replay passes on H200), CLI flags §4,
raw CSV layout §5.1 (preamble, header starting with "ID", units row, quoted thousands separators, n/a),
silent omission of unknown metrics §1 (so every requested metric's column is checked here).
"""
from __future__ import annotations

import csv
import io
import re
import shutil
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

#: ncu-and-torch.md §0.1: the Hopper (sm_90) list; every name was collected on an H200.
METRICS_SM90: Tuple[str, ...] = (
    "gpu__time_duration.sum",
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sector_hit_rate.pct",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
    "smsp__sass_inst_executed_op_global_ld.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "smsp__sass_inst_executed_op_global_atom.sum",
    "smsp__sass_inst_executed_op_global_red.sum",
    "smsp__inst_executed.sum",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
    "sm__ops_path_tensor_src_fp16.sum",
    "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
    "sm__ops_path_tensor_src_fp64.sum",
    "sm__ops_path_tensor_src_fp8.sum",
    "sm__ops_path_tensor_src_int8.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "dram__bytes.sum.per_second",
    "smsp__average_thread_inst_executed_per_inst_executed.ratio",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
)

#: Tensor-pipe metric and threshold used to call a kernel tensor-core (ncu-and-torch.md §2.5, §7.6:
#: HFMA2.MMA constant building gives up to ~2.4% on non-tensor kernels, so 5% separates them).
TENSOR_PIPE_METRIC = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"
TENSOR_PIPE_THRESHOLD_PCT = 5.0


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
                    metrics: Sequence[str] = METRICS_SM90, launch_skip: int = 1, launch_count: int = 1,
                    per_launch_config: bool = True, from_start: bool = False,
                    nvtx_include: Optional[str] = None, kill_after: bool = False) -> List[str]:
    """ncu command profiling `target` (argv). Clock control none (METHOD.md: leave clocks alone) and the
    default cache control `all` (caches flushed before each pass, §2.2). With per_launch_config the
    skip/count apply separately to each (grid, block, shared memory) configuration (ncu --filter-mode)."""
    cmd = [ncu, "--target-processes", "all", "--clock-control", "none", "--cache-control", "all",
           "--profile-from-start", "on" if from_start else "off",
           "--kernel-name-base", "function", "-k", kernel_filter,
           "--launch-skip", str(launch_skip), "--launch-count", str(launch_count),
           "--metrics", ",".join(metrics), "--import-sass", "no", "-f", "-o", report]
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


def missing_metrics(header: Sequence[str], metrics: Sequence[str] = METRICS_SM90) -> List[str]:
    """Requested metrics that have no column in `header`."""
    have = set(header)
    return [m for m in metrics if m not in have]


def require_metrics(header: Sequence[str], metrics: Sequence[str] = METRICS_SM90, where: str = "<ncu csv>") -> None:
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
