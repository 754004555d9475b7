"""The figure layer of `vxsynth report` (docs/report.md): draws the numbers that vxsynth computed
(DIR/data/report_data.json, schema vxsynth.report-data v1) as SVG + PDF figures in DIR/figures/ and
writes the self-contained page DIR/index.html (figures inlined as SVG, no script, no external
resource). Nothing here computes a number of the report: every value drawn or printed is read from
the data file.

With a sweep (`vxsynth report SUITE --sweep SWEEPDIR`, docs/sweep.md) the data file has a `sweep`
field and the page a sweep section: speedup of each benchmark against the baseline point, and the
main effect of each parameter on speedup, IPC and the ten metrics, per op family and per workload.

usage: python3 -m vxsynth_torch.figures DIR/data/report_data.json DIR
"""
from __future__ import annotations

import html
import json
import os
import re
import sys
from typing import Any, Dict, List, Optional, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import TwoSlopeNorm  # noqa: E402

SCHEMA = "vxsynth.report-data"
# Reproducible files: fixed SVG ids, no dates in the SVG/PDF metadata.
plt.rcParams.update({"svg.hashsalt": "vxsynth-report", "font.size": 8, "axes.titlesize": 9})
_SVG_META = {"Date": None, "Creator": "vxsynth report"}
_PDF_META = {"CreationDate": None, "Creator": "vxsynth report"}
TYPE_COLORS = {"linear": "#4c72b0", "matmul": "#dd8452", "conv1d": "#55a868", "conv2d": "#c44e52"}
DECISION_STYLE = {"seed": ("s", "#333333"), "retain": ("o", "#2a9d2a"), "revert": ("v", "#d08a1c"),
                  "reject": ("x", "#b22222")}


class DataError(ValueError):
    """The data file is not what vxsynth writes (its message names the file and field)."""


def load(path: str) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    if not isinstance(d, dict) or d.get("schema") != SCHEMA or d.get("version") != 1:
        raise DataError(f"{path}: field 'schema'/'version' is not {SCHEMA} v1")
    for k in ("metrics", "coverage", "suite_table", "axis_map", "chains", "distances", "order"):
        if k not in d:
            raise DataError(f"{path}: no field '{k}'")
    return d


def save(fig, out: str, name: str) -> List[str]:
    """Writes figures/NAME.svg and .pdf; returns their paths relative to `out`."""
    os.makedirs(os.path.join(out, "figures"), exist_ok=True)
    rel = [f"figures/{name}.svg", f"figures/{name}.pdf"]
    fig.savefig(os.path.join(out, rel[0]), format="svg", metadata=_SVG_META, bbox_inches="tight")
    fig.savefig(os.path.join(out, rel[1]), format="pdf", metadata=_PDF_META, bbox_inches="tight")
    plt.close(fig)
    return rel


def safe_name(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", s)


def workflow_label(d: Dict[str, Any], key: str) -> str:
    return next((w["label"] for w in d["workflows"] if w["key"] == key), key)


# ---- Fig. 3: coverage ----------------------------------------------------------------------
def fig_coverage(d: Dict[str, Any], out: str) -> Optional[str]:
    rows = d["coverage"]
    if not rows:
        return None
    groups: List[Tuple[str, str]] = []
    for r in rows:
        if (r["workload"], r["platform"]) not in groups:
            groups.append((r["workload"], r["platform"]))
    fig, ax = plt.subplots(figsize=(6.5, 0.5 + 0.45 * len(groups)))
    for y, g in enumerate(groups):
        left = 0.0
        for r in (r for r in rows if (r["workload"], r["platform"]) == g):
            w = 100 * r["share"]
            ax.barh(y, w, left=left, color=TYPE_COLORS.get(r["type"], "#888888"), edgecolor="white")
            if w > 4:
                ax.text(left + w / 2, y, r["kernel_id"], ha="center", va="center", color="white", fontsize=7)
            left += w
        ax.text(left + 1, y, f"{left:.1f} %", va="center")
    ax.set_yticks(range(len(groups)), [f"{w} / {p}" for w, p in groups])
    ax.set_xlim(0, 100)
    ax.invert_yaxis()
    ax.set_xlabel("cumulative share of GPU time of the benchmarked kernels (%)")
    types = sorted({r["type"] for r in rows})
    ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=TYPE_COLORS.get(t, "#888888")) for t in types],
              labels=types, loc="lower right", frameon=False)
    ax.set_title("Kernel coverage per workload × platform (paper Fig. 3)")
    return save(fig, out, "fig3_coverage")[0]


# ---- Fig. 4: axis-response map -------------------------------------------------------------
def fig_axis_map(d: Dict[str, Any], out: str) -> Optional[str]:
    am = d["axis_map"]
    order = list(TYPE_COLORS)
    panels = sorted((p for p in am["panels"] if p["revisions"] > 0),
                    key=lambda p: (p["workflow"], order.index(p["type"]) if p["type"] in order else len(order)))
    if not panels:
        return None
    axes, metrics = am["axes"], [m["key"] for m in d["metrics"]]
    labels = [m["label"] for m in d["metrics"]]
    groups = [m["group"] for m in d["metrics"]]
    vals = [abs(c["mean"]) for p in panels for c in p["cells"] if c["mean"] is not None]
    lim = max(0.05, min(1.0, max(vals) if vals else 1.0))
    cmap = plt.get_cmap("RdBu_r").copy()
    cmap.set_bad("#d9d9d9")
    fig, axs = plt.subplots(len(panels), 1, figsize=(7.5, 0.9 + 3.4 * len(panels)), squeeze=False,
                            layout="constrained")
    for ax, p in zip(axs[:, 0], panels):
        grid = [[float("nan")] * len(metrics) for _ in axes]
        count = [[0] * len(metrics) for _ in axes]
        for c in p["cells"]:
            i, j = axes.index(c["axis"]), metrics.index(c["metric"])
            count[i][j] = c["count"]
            if c["mean"] is not None:
                grid[i][j] = c["mean"]
        im = ax.imshow(grid, cmap=cmap, norm=TwoSlopeNorm(0.0, -lim, lim), aspect="auto")
        for i in range(len(axes)):
            for j in range(len(metrics)):
                if count[i][j]:
                    ax.text(j, i, f"{grid[i][j]:+.2f}\nn={count[i][j]}", ha="center", va="center", fontsize=5.5)
        ax.set_xticks(range(len(metrics)), labels, rotation=35, ha="right")
        ax.set_yticks(range(len(axes)), axes)
        for j in range(1, len(groups)):
            if groups[j] != groups[j - 1]:
                ax.axvline(j - 0.5, color="black", lw=1)
        ax.set_title(f"{p['type']} — {workflow_label(d, p['workflow'])}: {p['revisions']} single-axis revisions")
        fig.colorbar(im, ax=ax, fraction=0.025, pad=0.01, label="mean signed response")
    fig.suptitle("Axis-response map (paper Fig. 4): red = increase, blue = decrease, gray = never applied alone")
    return save(fig, out, "fig4_axis_map")[0]


# ---- Fig. 5: revision chains ---------------------------------------------------------------
def fig_chain(d: Dict[str, Any], c: Dict[str, Any], out: str) -> str:
    rows = c["rows"]
    fig, ax = plt.subplots(figsize=(6.5, 3.0))
    kept = [r for r in rows if r["decision"] in ("seed", "retain")]
    ax.step([r["revision"] for r in kept] + [rows[-1]["revision"]],
            [r["D"] for r in kept] + [kept[-1]["D"]], where="post", color="#2a9d2a", lw=1, label="retained D")
    top = max((r["D"] for r in rows if r["D"] is not None), default=1.0)
    for dec, (marker, color) in DECISION_STYLE.items():
        pts = [(r["revision"], r["D"] if r["D"] is not None else top * 1.05) for r in rows if r["decision"] == dec]
        if pts:
            ax.scatter(*zip(*pts), marker=marker, color=color, label=dec, zorder=3)
    ax.set_xticks([r["revision"] for r in rows],
                  [f"r{r['revision']} {r['axes']}" for r in rows], rotation=40, ha="right", fontsize=6.5)
    ax.set_ylabel("signature distance D")
    ax.set_ylim(bottom=0)
    ax.legend(frameon=False, fontsize=7)
    ax.set_title(f"Revision chain of {c['benchmark']} ({workflow_label(d, c['workflow'])}; paper Fig. 5)")
    return save(fig, out, "fig5_chain_" + safe_name(c["benchmark"]))[0]


# ---- seed vs final per-metric distances ----------------------------------------------------
def fig_distances(d: Dict[str, Any], out: str) -> Optional[str]:
    items = d["distances"]
    if not items:
        return None
    metrics = [m["key"] for m in d["metrics"]]
    labels = [m["label"] for m in d["metrics"]]
    fig, axs = plt.subplots(len(items), 1, figsize=(7.5, 0.6 + 2.6 * len(items)), squeeze=False,
                            layout="constrained")
    for ax, b in zip(axs[:, 0], items):
        series = []
        for s in b["sides"]:
            series.append((f"{s['side']} seed", [m["seed"] for m in s["metrics"]], 0.35))
            series.append((f"{s['side']} final", [m["final"] for m in s["metrics"]], 1.0))
        series = [s for s in series if any(v is not None for v in s[1])]
        w = 0.8 / max(1, len(series))
        for k, (name, vals, alpha) in enumerate(series):
            color = "#4c72b0" if name.startswith("cuda") else "#c44e52"
            xs = [j + (k - (len(series) - 1) / 2) * w for j in range(len(metrics))]
            ax.bar(xs, [v if v is not None else 0 for v in vals], width=w, color=color, alpha=alpha, label=name)
        ax.set_xticks(range(len(metrics)), labels, rotation=30, ha="right", fontsize=6.5)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("d")
        ds = ", ".join(f"{s['side']} D {s['D_seed'] if s['D_seed'] is None else round(s['D_seed'], 4)} → "
                       f"{s['D_final'] if s['D_final'] is None else round(s['D_final'], 4)}" for s in b["sides"])
        ax.set_title(f"{b['benchmark']}: {ds}", fontsize=8)
        ax.legend(frameon=False, fontsize=6.5, ncol=4)
    fig.suptitle("Per-metric distance to the reference, seed vs locked revision (CUDA and Vortex side)")
    return save(fig, out, "fig_distances")[0]


# ---- Fig. 6a: CUDA-first vs Vortex-first ---------------------------------------------------
def fig_order(d: Dict[str, Any], out: str) -> Optional[str]:
    series = d["order"]["series"]
    if not series:
        return None
    metrics = [m["key"] for m in d["metrics"]]
    labels = [m["label"] for m in d["metrics"]]
    fig, ax = plt.subplots(figsize=(6.5, 3.0))
    markers = {"cuda-first": ("o", "#4c72b0"), "vortex-first": ("s", "#c44e52"), "vxsim-counters": ("^", "#8172b2")}
    for s in series:
        m, color = markers.get(s["workflow"], ("d", "#555555"))
        ys = [s["mean"][k] for k in metrics]
        xs = [j for j, y in enumerate(ys) if y is not None]
        ax.plot(xs, [ys[j] for j in xs], marker=m, color=color, lw=0.8,
                label=f"{s['label']} — {len(s['kernels'])} kernels")
    ax.set_xticks(range(len(metrics)), labels, rotation=30, ha="right")
    ax.set_ylabel("mean component distance")
    ax.set_ylim(0, 1.05)
    ax.legend(frameon=False, fontsize=6.5)
    same = "same kernels in every series" if d["order"]["same_kernels"] else "series over different kernels"
    present = {s["workflow"] for s in series}
    missing = [w["label"] for w in d["workflows"] if w["key"] in ("cuda-first", "vortex-first") and w["key"] not in present]
    title = f"CUDA-first vs Vortex-first (paper Fig. 6a; {same})"
    if missing:
        title += "\nno records yet: " + "; ".join(missing)
    ax.set_title(title)
    return save(fig, out, "fig6a_order")[0]


# ---- sweep (docs/sweep.md "Figures") ---------------------------------------------------------
def fig_sweep_speedup(sw: Dict[str, Any], out: str) -> Optional[str]:
    """Speedup of each benchmark at each point against the baseline point, benchmarks grouped by op family."""
    rows = [r for r in sw["rows"] if r["speedup"] is not None]
    if not rows:
        return None
    bench = sorted({(r["op"], r["benchmark"]) for r in rows})
    points = [p for p in sw["grid"]["points"] if p["index"] != sw["baseline"]["index"]] or sw["grid"]["points"]
    width = 0.8 / max(1, len(points))
    fig, ax = plt.subplots(figsize=(max(5.0, 0.6 * len(bench) * max(1, len(points)) ** 0.5 + 2), 3.2))
    cmap = plt.get_cmap("tab20")
    for j, p in enumerate(points):
        xs, ys = [], []
        for i, (_, b) in enumerate(bench):
            r = next((r for r in rows if r["benchmark"] == b and r["point"] == p["index"]), None)
            if r is not None:
                xs.append(i + (j - (len(points) - 1) / 2) * width)
                ys.append(r["speedup"])
        ax.bar(xs, ys, width, color=cmap(j % 20), label=f"{p['index']}: {p['label']}")
    ax.axhline(1.0, color="#333333", lw=0.8)
    ax.set_xticks(range(len(bench)))
    ax.set_xticklabels([f"{b}\n({op})" for op, b in bench], rotation=30, ha="right")
    ax.set_ylabel(f"speedup vs point {sw['baseline']['index']}")
    ax.set_title(f"Speedup against the baseline ({sw['baseline']['label']})")
    ax.legend(fontsize=6, ncol=2 if len(points) > 8 else 1, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return save(fig, out, "sweep_speedup")[0]


def fig_sweep_effects(sw: Dict[str, Any], out: str, by: str) -> Optional[str]:
    """Main effect of each parameter value (mean over the other parameters' values) on each quantity."""
    eff = [e for e in sw["main_effects"] if e["group_by"] == by]
    if not any(e["mean"] is not None for e in eff):
        return None
    params = sw["grid"]["params"]
    quantities = list(dict.fromkeys(e["quantity"] for e in eff))
    groups = sorted({e["group"] for e in eff})
    labels = {m["key"]: f"{m['label']} ({m['unit']})" for m in sw["metrics"]}
    labels.update({"speedup": "speedup", "ipc": "IPC (warp instr/cycle)"})
    fig, axes = plt.subplots(len(quantities), len(params), squeeze=False,
                             figsize=(3.2 * len(params) + 1.2, 1.5 * len(quantities) + 0.6))
    for i, q in enumerate(quantities):
        for j, p in enumerate(params):
            ax = axes[i][j]
            for g in groups:
                pts = sorted((p["values"].index(e["value"]), e["mean"]) for e in eff
                             if e["quantity"] == q and e["param"] == p["key"] and e["group"] == g
                             and e["mean"] is not None)
                if pts:
                    ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", ms=3,
                            color=TYPE_COLORS.get(g), label=g)
            ax.set_xticks(range(len(p["values"])))
            ax.set_xticklabels(p["values"], fontsize=6)
            if i == len(quantities) - 1:
                ax.set_xlabel(p["key"])
            if j == 0:
                ax.set_ylabel(labels.get(q, q), fontsize=6)
    handles, names = axes[0][-1].get_legend_handles_labels()
    if handles:
        axes[0][-1].legend(handles, names, fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0), title=by)
    fig.suptitle(f"Response to each parameter by {'op family' if by == 'op' else by} (mean over the other parameters)")
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    return save(fig, out, f"sweep_effects_{by}")[0]


def sweep_section(sw: Dict[str, Any], out: str, figs: Dict[str, Optional[str]]) -> str:
    """The page's sweep section: counts, the skipped points with their reasons, the figures."""
    counts = ", ".join(f"{k} {v}" for k, v in sorted(sw["counts"].items()))
    parts = [f'<section id="sweep"><h2>Design-space sweep</h2><p>{len(sw["benchmarks"])} benchmarks × '
             f'{len(sw["grid"]["points"])} points from <code>{html.escape(sw["sweep"])}</code>: '
             f'{html.escape(counts)}; baseline point {sw["baseline"]["index"]} '
             f'({html.escape(sw["baseline"]["label"])}); data: <a href="data/sweep.csv">sweep.csv</a>.</p>']
    if sw["skipped"]:
        pts = {p["index"]: p["label"] for p in sw["grid"]["points"]}
        parts.append(table(["benchmark", "point", "skipped because"],
                           [[html.escape(s["benchmark"]), html.escape(f"{s['point']}: {pts[s['point']]}"),
                             html.escape(s["reason"])] for s in sw["skipped"]]))
    for key in ("sweep_speedup", "sweep_effects_op", "sweep_effects_workload"):
        if figs.get(key):
            parts.append(inline_svg(out, figs[key]))
    parts.append("</section>")
    return "".join(parts)

# ---- the page ------------------------------------------------------------------------------
def inline_svg(out: str, rel: str) -> str:
    with open(os.path.join(out, rel), encoding="utf-8") as f:
        svg = f.read()
    svg = re.sub(r"<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"<!DOCTYPE[^>]*>\s*", "", svg)
    pdf = rel[:-4] + ".pdf"
    return (f'<figure id="{html.escape(os.path.basename(rel)[:-4])}">{svg}'
            f'<figcaption><a href="{html.escape(rel)}">SVG</a> · <a href="{html.escape(pdf)}">PDF</a>'
            f"</figcaption></figure>")


def fmt(v: Any, digits: int = 4) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return html.escape(str(v))


def table(headers: List[str], rows: List[List[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def suite_table(d: Dict[str, Any]) -> str:
    rows = []
    for r in sorted(d["suite_table"], key=lambda r: (r["type"], r["workload"], r["rank"])):
        rows.append([html.escape(r["type"]), html.escape(r["label"] or "–"),
                     f'<a href="{html.escape(r["link"])}">{html.escape(r["benchmark"])}</a>',
                     html.escape(r["workload"]), html.escape(r["platform"]),
                     f'<code title="{html.escape(r["kernel_name"])}">{html.escape(r["kernel_name"][:60])}</code>',
                     f"{100 * r['share']:.1f} %", html.escape(r["precision"]), html.escape(r["workflow"]),
                     f"{r['revisions_tried']} ({r['retained']}/{r['reverted']}/{r['rejected']})",
                     fmt(r["seed_D"]), f"<b>{fmt(r['final_D'])}</b> (r{r['locked_revision']})", fmt(r["vortex_D"])])
    return table(["type", "label", "benchmark", "workload", "platform", "reference kernel", "GPU-time share", "precision",
                  "workflow", "revisions (retained/reverted/rejected)", "seed D", "final D", "Vortex-side D"], rows)


def chain_table(c: Dict[str, Any]) -> str:
    rows = []
    for r in c["rows"]:
        moved = ", ".join(f"{m['metric']} {m['response']:+.3f}" for m in r["moved"][:4])
        rows.append([f"r{r['revision']}", "–" if r["parent"] < 0 else f"r{r['parent']}", html.escape(r["axes"]),
                     html.escape(r["decision"]), fmt(r["D"]), fmt(r["delta_D"]), html.escape(moved),
                     html.escape(r["rejection_reason"][:120])])
    return table(["revision", "parent", "axes", "decision", "D", "ΔD", "moved (signed response)", "rejection"], rows)


CSS = """body{font-family:sans-serif;margin:1.5em;max-width:1100px}table{border-collapse:collapse;font-size:12px;
margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}th{background:#f0f0f0}
figure{margin:1em 0}svg{max-width:100%;height:auto}code{font-size:11px}.note{color:#555}"""


def page(d: Dict[str, Any], out: str, figs: Dict[str, Optional[str]], chains: List[Tuple[Dict[str, Any], str]]) -> str:
    am = d["axis_map"]
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>vxsynth report</title>"
             f"<style>{CSS}</style></head><body><h1>vxsynth report</h1>",
             f"<p class=\"note\">Generated {html.escape(d['generated_utc'])} from "
             f"{len(d['suite_table'])} benchmarks; data: <a href=\"data/report_data.json\">report_data.json</a> and "
             f"the CSV files in <a href=\"data/suite_table.csv\">data/</a>.</p>"]
    if d["notes"]:
        parts.append("<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in d["notes"]) + "</ul>")
    sections = [("coverage", "Kernel coverage (§4.1, Fig. 3)", figs.get("coverage"), ""),
                ("suite", "The suite (Table 6)", None, suite_table(d)),
                ("axis-map", "How the axes move the signature (§4.3, Fig. 4)", figs.get("axis_map"),
                 f"<p>{am['used']} single-axis revisions against their retained parent; left out: "
                 + (", ".join(f"{k} {v}" for k, v in sorted(am["excluded"].items())) or "none") + ".</p>"),
                ("distances", "Seed vs final per-metric distance, CUDA and Vortex side", figs.get("distances"), ""),
                ("order", "CUDA-first vs Vortex-first (§4.5, Fig. 6a)", figs.get("order"), "")]
    for sid, title, fig, extra in sections:
        parts.append(f'<section id="{sid}"><h2>{html.escape(title)}</h2>{extra}')
        if fig:
            parts.append(inline_svg(out, fig))
        parts.append("</section>")
    if d.get("sweep"):
        parts.append(sweep_section(d["sweep"], out, figs))
    parts.append('<section id="chains"><h2>Revision chains (§4.4, Table 7, Fig. 5)</h2>')
    for c, fig in chains:
        parts.append(f"<h3>{html.escape(c['benchmark'])}</h3>" + inline_svg(out, fig) + chain_table(c))
    parts.append("</section></body></html>\n")
    return "".join(parts)


def main(argv: List[str]) -> int:
    if argv in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    data_path, out = argv
    try:
        d = load(data_path)
    except (OSError, json.JSONDecodeError, DataError) as e:
        print(f"vxsynth_torch.figures: error: {e}", file=sys.stderr)
        return 2
    figs = {"coverage": fig_coverage(d, out), "axis_map": fig_axis_map(d, out),
            "distances": fig_distances(d, out), "order": fig_order(d, out)}
    if d.get("sweep"):
        figs.update({"sweep_speedup": fig_sweep_speedup(d["sweep"], out),
                     "sweep_effects_op": fig_sweep_effects(d["sweep"], out, "op"),
                     "sweep_effects_workload": fig_sweep_effects(d["sweep"], out, "workload")})
    chains = [(c, fig_chain(d, c, out)) for c in d["chains"] if c["rows"]]
    tmp = os.path.join(out, "index.html.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page(d, out, figs, chains))
    os.replace(tmp, os.path.join(out, "index.html"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
