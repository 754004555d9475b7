"""`vxsynth report` on the committed H200 evidence, loaded in a real headless Chromium (Debian
`chromium`): the page loads with no console error and makes no external request (every host is
mapped to NOTFOUND, so one would show up as a failed load in the console), every figure renders
(a screenshot with pixel variance), every link resolves to an existing file, the data files agree
with the page. Skipped, with the reason, when chromium, matplotlib or the vxsynth executable is
absent."""
from __future__ import annotations

import glob
import html.parser
import json
import os
import shutil
import subprocess
import sys
from typing import List, Tuple
from urllib.parse import unquote, urlparse

import pytest

from vxsynth_torch import rules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVIDENCE = os.path.join(ROOT, "data", "evidence", "h200", "reconstruct-ncu-2026-12-01")
RUNS = ["act-k4", "act-k5", "diffusion_policy-k2", "pi0-k1"]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian package chromium)"),
    pytest.mark.skipif(rules.find_vxsynth() is None, reason="vxsynth is not built (cmake --build --preset release)"),
]


def chromium(args: List[str], timeout: float = 120) -> subprocess.CompletedProcess:
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--disable-background-networking", "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr", "--v=0", "--hide-scrollbars"]
    return subprocess.run(base + args, capture_output=True, text=True, timeout=timeout)


class Refs(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: List[Tuple[str, str, str]] = []
        self.tags: List[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if k in ("href", "src", "xlink:href", "action", "poster", "data") and v is not None:
                self.refs.append((tag, k, v))


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> str:
    pytest.importorskip("matplotlib", reason="python3-matplotlib is not installed")
    out = str(tmp_path_factory.mktemp("report") / "rep")
    exe = rules.vxsynth()
    r = subprocess.run([exe, "report"] + [os.path.join(EVIDENCE, x) for x in RUNS] +
                       ["-o", out, "--python", sys.executable],
                       capture_output=True, text=True, timeout=600, env=rules.env_for(exe))
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def figures(out: str) -> List[str]:
    return sorted(glob.glob(os.path.join(out, "figures", "*.svg")))


def test_every_figure_has_svg_and_pdf(report):
    svgs = figures(report)
    # coverage, axis map, distances, workflow comparison, one chain per benchmark
    assert len(svgs) == 4 + len(RUNS), svgs
    for s in svgs:
        pdf = s[:-4] + ".pdf"
        assert os.path.getsize(s) > 1000 and os.path.getsize(pdf) > 1000
        with open(pdf, "rb") as f:
            assert f.read(5) == b"%PDF-"


def test_page_is_self_contained_and_links_resolve(report):
    with open(os.path.join(report, "index.html"), encoding="utf-8") as f:
        page = f.read()
    p = Refs()
    p.feed(page)
    assert "script" not in p.tags and "link" not in p.tags and "iframe" not in p.tags
    assert "@import" not in page and "url(http" not in page
    assert p.tags.count("svg") == len(figures(report)), "every figure is inlined"
    links = 0
    for tag, attr, v in p.refs:
        u = urlparse(v)
        assert u.scheme in ("", "file", "data"), f"<{tag} {attr}={v[:80]!r}> leaves the report"
        if v.startswith("#") or u.scheme == "data":  # a fragment, or an image inlined in the SVG
            continue
        path = unquote(u.path)
        target = path if os.path.isabs(path) else os.path.normpath(os.path.join(report, path))
        assert os.path.isfile(target), f"<{tag} {attr}={v!r}> -> {target} does not exist"
        links += 1
    # the suite table links every benchmark to its summary
    for run in RUNS:
        assert f"{run}/summary.md" in page
    assert links >= len(RUNS) + 2 * len(figures(report))


def load_page(path: str, tmp_path) -> Tuple[subprocess.CompletedProcess, List[str], List[str]]:
    """Chromium's DOM of the page, its console messages, and the URLs the page itself requested from
    outside file:// (from Chromium's NetLog: URL requests whose site for cookies is the file page;
    Chromium's own background requests have none)."""
    netlog = str(tmp_path / "netlog.json")
    r = chromium([f"--log-net-log={netlog}", "--dump-dom", "file://" + path])
    console = [l for l in r.stderr.splitlines() if ":CONSOLE" in l]
    with open(netlog, encoding="utf-8") as f:
        log = json.load(f)
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    external = [e["params"]["url"] for e in log["events"]
                if e["type"] == start and "url" in e.get("params", {})
                and "site=file://" in str(e["params"].get("site_for_cookies", ""))
                and not e["params"]["url"].startswith(("file:", "data:"))]
    return r, console, external


def test_the_browser_checks_can_fail(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><img src="http://example.com/x.png"><script>console.error("boom")</script>'
                   "</body></html>")
    _, console, external = load_page(str(bad), tmp_path)
    assert any("boom" in l for l in console), console
    assert external == ["http://example.com/x.png"], external


def test_page_loads_in_chromium_without_console_errors_or_requests(report, tmp_path):
    r, console, external = load_page(os.path.join(report, "index.html"), tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert console == [], console
    assert external == [], external
    assert r.stdout.count("<svg") == len(figures(report))
    assert "Table 6" in r.stdout and "act-k4" in r.stdout


def _variance(png: str) -> float:
    import matplotlib.image as mpimg
    img = mpimg.imread(png)
    return float(img[..., :3].var())


def test_every_figure_renders_in_chromium(report, tmp_path):
    for svg in figures(report):
        png = str(tmp_path / (os.path.basename(svg) + ".png"))
        r = chromium([f"--screenshot={png}", "--window-size=1000,800", "file://" + svg])
        assert r.returncode == 0 and os.path.isfile(png), r.stderr[-2000:]
        assert _variance(png) > 1e-3, f"{svg}: the screenshot is blank"
    page_png = str(tmp_path / "page.png")
    r = chromium([f"--screenshot={page_png}", "--window-size=1200,3000", "file://" + os.path.join(report, "index.html")])
    assert r.returncode == 0 and _variance(page_png) > 1e-3


def test_page_numbers_are_the_data_files(report):
    with open(os.path.join(report, "data", "report_data.json"), encoding="utf-8") as f:
        d = json.load(f)
    with open(os.path.join(report, "index.html"), encoding="utf-8") as f:
        page = f.read()
    for row in d["suite_table"]:
        assert f"{row['final_D']:.4f}" in page, row["benchmark"]
    with open(os.path.join(report, "data", "axis_map.csv"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert len(lines) == 1 + len(d["axis_map"]["panels"]) * len(d["axis_map"]["axes"]) * len(d["metrics"])
