"""Hot-kernel tables for docs/workloads.md from the raw outputs of the profiling driver.

usage: python -m vxsynth_torch.report DIR [DIR ...] [--update]
For each DIR (one workload: hot_kernels.json + the ncu CSVs it names) print a markdown table: rank, op,
shape, precision path, engine class, GPU-time share, cumulative coverage, kernel. `--update` re-derives
each hot kernel's engine class / precision path from its ncu row with the current `profile.classify`
and rewrites hot_kernels.json (the raw CSV and trace are not touched).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List

from . import ncu as ncu_mod
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


def _shape(h: Dict[str, Any]) -> str:
    dims = [x for x in (h.get("top_input_dims") or h.get("input_dims") or []) if x]
    return " x ".join("(" + ",".join(str(v) for v in x) + ")" for x in dims)


def table(hk: Dict[str, Any]) -> str:
    lines = ["| # | op (top-level / launching) | input shapes | precision path | engine | launches | "
             "GPU-time share | cumulative | kernel |", "|---|---|---|---|---|---|---|---|---|"]
    for h in hk["hot"]:
        n = h.get("ncu") or {}
        name = h["name"] if len(h["name"]) <= 90 else h["name"][:87] + "..."
        lines.append(f"| {h['rank']} | {h['top_op']} / {h['op']} | {_shape(h)} | {n.get('precision_path', 'n/a')} | "
                     f"{n.get('engine_class', 'n/a')} | {h['launches']} | {h['share'] * 100:.1f}% | "
                     f"{h['cumulative_share'] * 100:.1f}% | `{name}` |")
    return "\n".join(lines)


def main(argv: List[str] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vxsynth_torch.report")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--update", action="store_true")
    a = ap.parse_args(argv)
    for d in a.dirs:
        hk = refresh(d)
        if a.update:
            p = os.path.join(d, "hot_kernels.json")
            with open(p + ".tmp", "w", encoding="utf-8") as f:
                json.dump(hk, f, indent=1)
                f.write("\n")
            os.replace(p + ".tmp", p)
        r = hk.get("ranking", {})
        print(f"### {hk['workload']} ({hk.get('config')}): {r.get('kernel_launches')} kernel launches, "
              f"{r.get('distinct_kernels')} distinct (name, grid, block), {r.get('total_kernel_us', 0) / 1e3:.2f} ms "
              f"GPU kernel time per inference\n")
        print(table(hk) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
