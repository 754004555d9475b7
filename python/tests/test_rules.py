"""The rules Python reads from the C++ side (vxsynth_torch.rules): the shared kernel-name case file
tests/data/kernel_names.tsv (also run by core/tests/kernel_names_test.cc), the ncu metric list, the
hot-kernel grouping on the TCN fixture (tests/data/tcn), and the errors when the C++ side is missing or
refuses a trace."""
import gzip
import json
import os
import subprocess

import pytest

from conftest import REPO
from vxsynth_torch import ncu, rules, trace

TSV = os.path.join(REPO, "tests", "data", "kernel_names.tsv")
TCN = os.path.join(REPO, "tests", "data", "tcn")


def cases():
    out = []
    with open(TSV, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            assert len(cols) == 7, f"{TSV}:{n}: {len(cols)} columns"
            out.append((n, cols))
    return out


def test_kernel_name_cases_file():
    cs = cases()
    assert len(cs) >= 40
    got = rules.kernel_names([c[1][0] for c in cs])
    for (n, (name, base, rule, engine, role, tile, _src)), g in zip(cs, got):
        t = g["tile"]
        tile_text = f"{t['m']}x{t['n']}x{t['k']}x{t['stages']}" if t else "-"
        assert (g["base_name"], g["rule"] or "-", g["engine"] or "-", g["role"], tile_text) == \
            (base, rule, engine, role, tile), f"kernel_names.tsv:{n} {name[:80]}"
    # trace.function_base_name is the C++ rule, also where the two sides used to disagree
    assert trace.function_base_name("void ns::Tile<128>::run(float*)") == "run"


def test_every_rule_row_has_a_case():
    ids = {r["id"] for r in rules.kernel_name_rules()}
    assert ids == {c[1][2] for c in cases()} - {"-"}


def test_ncu_metric_list_is_the_cpp_list():
    exe = rules.vxsynth()
    out = subprocess.run([exe, "metrics", "--ncu-list", "--arch", "sm_90"], capture_output=True, text=True,
                         env=rules.env_for(exe), check=True).stdout.strip()
    assert ncu.required_metrics() == out.split(",")
    assert list(ncu.METRICS_SM90) == ncu.capture_metrics() and set(out.split(",")) <= set(ncu.capture_metrics())
    metric, threshold = ncu.tensor_pipe_rule()
    assert metric.startswith("sm__pipe_tensor") and threshold == 5.0
    # the names are real: every one has a column in the H200 capture
    with open(os.path.join(REPO, "tests", "data", "h200", "linear_fp32_simt.ncu_raw.csv"), encoding="utf-8") as f:
        header, _, _ = ncu.parse_raw_csv(f.read())
    assert ncu.missing_metrics(header) == []


def test_tcn_dilations_are_three_hot_kernels():
    path = os.path.join(TCN, "tcn.trace.json.gz")
    r = trace.rank_hot_kernels(trace.load_trace(path), 5, path)
    assert r["distinct_kernels"] == 3 and [h["launches"] for h in r["hot"]] == [2, 2, 2]
    shapes = [h["context"]["shape"] for h in r["hot"]]
    assert [s.split(" d=")[1].split(" ")[0] for s in shapes] == ["1,8", "1,4", "1,2"]
    assert all(h["op"] == "aten::convolution" and h["top_op"] == "aten::conv1d" for h in r["hot"])
    assert len({h["key"] for h in r["hot"]}) == 3


def test_range_filter_ranks_only_the_kept_kernels(tmp_path):
    """The NVTX-range filter stays on the Python side and hands the C++ ranking a filtered trace."""
    path = os.path.join(TCN, "tcn.trace.json.gz")
    data = trace.load_trace(path)
    ks = [e for e in data["traceEvents"] if e.get("cat") == "kernel"]
    first = min(k["ts"] for k in ks)
    data["traceEvents"] += [
        {"ph": "X", "cat": "user_annotation", "name": "r", "pid": 1, "tid": 1, "ts": 0, "dur": 1},
        {"ph": "X", "cat": "user_annotation", "name": "r", "pid": 1, "tid": 1, "ts": first - 1, "dur": 2}]
    data["traceEvents"] += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                             "ts": k["ts"], "dur": 0.1, "args": {"correlation": k["args"]["correlation"]}} for k in ks]
    r = trace.rank_hot_kernels(data, 5, path, range_name="r")
    assert r["kernel_launches"] == 1 and r["hot"][0]["launches"] == 1


def test_trace_without_shapes_is_refused_with_the_advice():
    path = os.path.join(TCN, "tcn_no_shapes.trace.json.gz")
    with pytest.raises(trace.TraceError, match=r"tcn_no_shapes.trace.json.gz: input shapes are missing.*record_shapes=True"):
        trace.rank_hot_kernels(trace.load_trace(path), 5, path)


def test_missing_executable_says_where_it_looked(monkeypatch, tmp_path):
    monkeypatch.setattr(rules, "_CHECKOUT", str(tmp_path))
    monkeypatch.setenv("VXSYNTH_BIN", str(tmp_path / "nope"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(rules.RulesError) as e:
        rules.vxsynth()
    m = str(e.value)
    assert "VXSYNTH_BIN=" in m and "is not an executable file" in m
    assert str(tmp_path / "build" / "release" / "cli" / "vxsynth") in m and "device-pack.sh" in m


def test_device_pack_layout_gets_its_libraries(tmp_path):
    root = tmp_path / "vxdev"
    (root / "bin").mkdir(parents=True)
    (root / "lib").mkdir()
    (root / "PACKED").write_text("packed\n")
    env = rules.env_for(str(root / "bin" / "vxsynth"))
    assert env["LD_LIBRARY_PATH"].split(os.pathsep)[0] == str(root / "lib")
    assert "LD_LIBRARY_PATH" not in rules.env_for("/usr/bin/true") or \
        str(root) not in rules.env_for("/usr/bin/true").get("LD_LIBRARY_PATH", "")
