"""Hot-kernel tables for docs/workloads.md from the raw outputs of the profiling driver.

usage: python -m vxsynth_torch.report DIR [DIR ...] [--top K] [--update]
For each DIR (one workload: trace.json.gz, ncu_raw.csv, hot_kernels.json) print a markdown table of the
C++ ranking and join (`vxsynth profile import`: groups by kernel name, grid, block and op signature; ncu
rows joined by base name, grid, block and launch order): rank, op, shape, precision path and engine
class (from the kernel's first joined ncu row, `profile.classify`), role, launches, GPU-time share,
cumulative coverage, kernel. `--update` re-derives each recorded hot kernel's engine class / precision
path in hot_kernels.json from its ncu row with the current `profile.classify` (the raw CSV and trace are
not touched).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List

from . import ncu as ncu_mod
from . import rules
from .profile import classify


def _rows(d: str, csv_name: str) -> Dict[str, Dict[str, str]]:
    with open(os.path.join(d, csv_name), encoding="utf-8") as f:
        _, _, rows = ncu_mod.parse_raw_csv(f.read(), csv_name)
    return {r["ID"]: r for r in rows}


def refresh(d: str) -> Dict[str, Any]:
    """hot_kernels.json of `d` with each hot kernel's ncu classification recomputed from its CSV row."""
    with open(os.path.join(d, "hot_kernels.json"), encoding="utf-8") as f:
        hk = json.load(f)
    cache: Dict[str, Dict[str, Dict[str, str]]] = {}
    for h in hk.get("hot", []):
        n = h.get("ncu")
        if not n or not n.get("csv"):
            continue
        rows = cache.setdefault(n["csv"], _rows(d, n["csv"]))
        r = rows.get(str(n["id"]))
        if r is None:
            raise ValueError(f"{d}/{n['csv']}: no row with ID {n['id']} (hot kernel rank {h['rank']})")
        n.update(classify(r))
    return hk


def bundle(d: str, top: int) -> Dict[str, Any]:
    """The C++ ranking + ncu join of DIR's trace and ncu_raw.csv (`vxsynth profile import`, printed)."""
    return rules.run_json(["profile", "import", "--trace", os.path.join(d, "trace.json.gz"), "--ncu",
                           os.path.join(d, "ncu_raw.csv"), "--top", str(top)])


def shape(c: Dict[str, Any]) -> str:
    """The context's shape as GEMM (M, N, K) or conv (N, C, H, W, K, R×S, stride, padding, dilation, groups)."""
    if c.get("gemm"):
        g = c["gemm"]
        return (f"B={g['batch']} " if g["batch"] > 1 else "") + f"M={g['m']} N={g['n']} K={g['k']}"
    if c.get("conv"):
        v = c["conv"]
        h = "" if c["op"] == "conv1d" else f"H={v['h']} "
        rs = f"{v['s']}" if c["op"] == "conv1d" else f"{v['r']}x{v['s']}"
        sp = (lambda a: str(a[1])) if c["op"] == "conv1d" else (lambda a: f"{a[0]},{a[1]}")
        return (f"N={v['n']} C={v['c']} {h}W={v['w']} K={v['k']} k={rs} s={sp(v['stride'])} p={sp(v['pad'])} "
                f"d={sp(v['dilation'])} g={v['groups']}")
    return "-"


def table(b: Dict[str, Any], csv_rows: Dict[str, Dict[str, str]]) -> str:
    lines = ["| # | op (top-level / launching) | shape | precision path | engine | role | launches | GPU-time share | "
             "cumulative | kernel |", "|---|---|---|---|---|---|---|---|---|---|"]
    for k in b["kernels"]:
        c = k["context"]
        ids = k["ncu"]["ids"]
        row = csv_rows.get(str(ids[0])) if ids else None
        n = classify(row) if row else {}
        name = k["name"] if len(k["name"]) <= 90 else k["name"][:87] + "..."
        stack = c["op_stack"]
        ops = f"{stack[0]} / {stack[-1]}" if stack else "-"
        lines.append(f"| {k['rank']} | {ops} | {shape(c)} | {n.get('precision_path', 'n/a')} | "
                     f"{n.get('engine_class', 'n/a')} | {'helper' if c['helper_kernel'] else 'main'} | {k['launches']} | "
                     f"{k['share'] * 100:.1f}% | {k['cumulative_share'] * 100:.1f}% | `{name}` |")
    return "\n".join(lines)


def main(argv: List[str] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vxsynth_torch.report",
                                 description="Markdown hot-kernel tables (C++ ranking and ncu join) of driver outputs.")
    ap.add_argument("dirs", nargs="+", help="driver output folders (trace.json.gz, ncu_raw.csv, hot_kernels.json)")
    ap.add_argument("--top", type=int, default=5, help="ranks per table (default 5)")
    ap.add_argument("--update", action="store_true", help="rewrite hot_kernels.json's ncu classification")
    a = ap.parse_args(argv)
    for d in a.dirs:
        if a.update:
            hk = refresh(d)
            p = os.path.join(d, "hot_kernels.json")
            with open(p + ".tmp", "w", encoding="utf-8") as f:
                json.dump(hk, f, indent=1)
                f.write("\n")
            os.replace(p + ".tmp", p)
        b = bundle(d, a.top)
        print(f"### {os.path.basename(os.path.abspath(d))}: {b['kernel_launches']} kernel launches, "
              f"{b['gpu_time_total_us'] / 1e3:.2f} ms GPU kernel time per inference\n")
        print(table(b, _rows(d, "ncu_raw.csv")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
