"""Checks on the real H200 captures committed under tests/data/h200 (operators) and
data/references/h200 (workloads): the parser finds every docs/ncu.md §0.1 metric, the counters give the
engine class each operator was chosen for, tensor/FFMA counts equal the tile-padded GEMM sizes, and the
committed hot-kernel rankings are reproduced from the committed traces."""
import json
import math
import os

import pytest

from conftest import REPO
from vxsynth_torch import capture_ops, ncu, trace
from vxsynth_torch.profile import classify

OPS_DIR = os.path.join(REPO, "tests", "data", "h200")
REF_DIR = os.path.join(REPO, "data", "references", "h200")
WORKLOADS = ("act", "diffusion_policy", "pi0")


def rows(path):
    with open(path, encoding="utf-8") as f:
        header, units, rs = ncu.parse_raw_csv(f.read(), path)
    ncu.require_metrics(header, where=path)
    return header, units, rs


def num(r, m):
    return ncu.number(r[m])


@pytest.mark.parametrize("op", [o.name for o in capture_ops.OPS])
def test_op_csv_has_every_metric_and_a_matching_trace(op):
    header, units, rs = rows(os.path.join(OPS_DIR, f"{op}.ncu_raw.csv"))
    assert rs, op
    assert units[header.index("gpu__time_duration.sum")] == "ns"
    assert all(r["CC"] == "9.0" for r in rs)
    data = trace.load_trace(os.path.join(OPS_DIR, f"{op}.trace.json.gz"))
    ks = trace.kernel_events(data)
    keys = {(trace.function_base_name(k["name"]), tuple(k["args"]["grid"]), tuple(k["args"]["block"])) for k in ks}
    for r in rs:  # every ncu row has a kernel of the same function, grid and block in the torch trace
        assert (trace.function_base_name(r["Kernel Name"]), ncu.launch_tuple(r["Grid Size"]),
                ncu.launch_tuple(r["Block Size"])) in keys, r["Kernel Name"]


def _main_rows(op):
    """The compute kernel rows of an op (layout transposes and bias adds left out)."""
    _, _, rs = rows(os.path.join(OPS_DIR, f"{op}.ncu_raw.csv"))
    return [r for r in rs if "Nhwc" not in r["Kernel Name"] and "Nchw" not in r["Kernel Name"]
            and "elementwise" not in r["Kernel Name"]]


def test_linear_fp32_is_simt_and_ffma_count_is_tile_padded():
    rs = _main_rows("linear_fp32_simt")
    assert len(rs) == 2
    for r in rs:
        assert classify(r) ["engine_class"] == "SIMT" and "ffma" in r["Kernel Name"]
        # tile 64x64: M = 302 rounds up to 320; FFMAs = Mpad*N*K + Mpad*N (bias epilogue)
        mpad = math.ceil(302 / 64) * 64
        assert num(r, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") == mpad * 3200 * 512 + mpad * 3200
        assert num(r, "sm__ops_path_tensor_src_tf32_dst_fp32.sum") == 0


def test_matmul_bf16_is_tensor_core_with_padded_tile_flops():
    for r in _main_rows("matmul_bf16_tc"):
        c = classify(r)
        assert c["engine_class"] == "tensor core" and c["precision_path"].startswith("bf16")
        assert r["Kernel Name"].startswith("nvjet_sm90_tst_128x208")
        # FLOPs (FMA = 2) over the padded 128x208 tiles: 816 -> 896 rows, 816 -> 832 cols, K 256, 8 heads
        assert num(r, "sm__ops_path_tensor_src_bf16_dst_fp32.sum") == 2 * 896 * 832 * 256 * 8


def test_conv2d_tf32_on_and_off():
    on = _main_rows("conv2d_fp32_tf32")
    off = _main_rows("conv2d_fp32_simt")
    flops = 2 * 120 * 160 * 64 * 64 * 9
    for r in on:
        assert classify(r)["precision_path"].startswith("tf32") and "tf32" in r["Kernel Name"]
        assert num(r, "sm__ops_path_tensor_src_tf32_dst_fp32.sum") == flops
    for r in off:
        assert classify(r)["engine_class"] == "SIMT" and "ffma" in r["Kernel Name"]
        assert 2 * num(r, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") == flops


def test_conv1d_runs_as_2d_tf32_with_weight_transposes():
    _, _, rs = rows(os.path.join(OPS_DIR, "conv1d_fp32_tf32.ncu_raw.csv"))
    names = [r["Kernel Name"] for r in rs]
    assert any("nchwToNhwc" in n for n in names)           # weight NCHW -> NHWC every call
    main = _main_rows("conv1d_fp32_tf32")
    assert main and all(classify(r)["precision_path"].startswith("tf32") for r in main)
    big = max((r for r in rs if "nchwToNhwc" in r["Kernel Name"]), key=lambda r: num(r, "gpu__time_duration.sum"))
    # the 2048x2048x5 fp32 weight is 83.9 MB: the transpose reads it from DRAM
    assert num(big, "dram__bytes_read.sum") >= 2048 * 2048 * 5 * 4 * 0.99


def test_details_page_is_long_format():
    with open(os.path.join(OPS_DIR, f"{capture_ops.DETAILS_OP}.ncu_details.csv"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    import csv
    rd = list(csv.reader(lines))
    assert rd[0][-3:] == ["Metric Name", "Metric Unit", "Metric Value"]
    metrics = {r[-3] for r in rd[1:]}
    assert ncu.missing_metrics(sorted(metrics)) == []


@pytest.mark.parametrize("w", WORKLOADS)
def test_reference_ranking_reproduced_and_joined(w):
    """The C++ ranking (trace.rank_hot_kernels) gives the committed bundle's kernels; the driver's recorded
    hot kernels (hot_kernels.json) keep their ncu rows and classification."""
    d = os.path.join(REF_DIR, w)
    with open(os.path.join(d, "hot_kernels.json"), encoding="utf-8") as f:
        hk = json.load(f)
    # Re-ranking the 5.9 MB Diffusion Policy trace (270 k events) costs ~15 s of JSON parsing on one
    # core; the smaller ACT and pi0 traces are re-ranked.
    if w != "diffusion_policy":
        with open(os.path.join(d, "bundle.json"), encoding="utf-8") as f:
            b = json.load(f)
        path = os.path.join(d, "trace.json.gz")
        r = trace.rank_hot_kernels(trace.load_trace(path), 5, path)
        assert [(h["name"], h["launches"]) for h in r["hot"]] == [(k["name"], k["launches"]) for k in b["kernels"]]
        assert r["coverage"] == pytest.approx(b["kernels"][-1]["cumulative_share"], abs=1e-6)  # rounded to 6 digits
        shares = [h["share"] for h in r["hot"]]
        assert shares == sorted(shares, reverse=True)
    by_csv = {}  # a kernel whose launch geometry other groups share has a launch-exact capture of its own
    for h in hk["hot"]:
        csv_name = h["ncu"].get("csv", "ncu_raw.csv")
        if csv_name not in by_csv:
            by_csv[csv_name] = {x["ID"]: x for x in rows(os.path.join(d, csv_name))[2]}
        row = by_csv[csv_name][h["ncu"]["id"]]
        assert trace.same_kernel(h["name"], row["Kernel Name"])
        assert ncu.launch_tuple(row["Grid Size"]) == tuple(h["grid"])
        assert classify(row)["engine_class"] == h["ncu"]["engine_class"]
    with open(os.path.join(d, "provenance.json"), encoding="utf-8") as f:
        prov = json.load(f)
    for k in ("gpu", "compute_capability", "driver", "cuda_runtime", "ncu", "torch", "command", "date_utc"):
        assert prov[k], k
    assert prov["gpu"] == "NVIDIA H200" and prov["clock_control"] == "none"


def test_one_kernel_two_shapes_are_two_hot_kernels():
    """ACT's sgemm_largek_lds64 runs (100,512)x(512,512) six times and (100,3200)x(3200,512) once with one
    name, grid and block: the C++ grouping (op signature) keeps them apart, the first as k4."""
    path = os.path.join(REF_DIR, "act", "trace.json.gz")
    hot = trace.rank_hot_kernels(trace.load_trace(path), 10, path)["hot"]
    largek = [h for h in hot if h["base_name"] == "sgemm_largek_lds64"]
    assert largek[0]["rank"] == 4 and len(largek) == 2
    assert [(h["input_dims"][1:3], h["launches"]) for h in largek] == [([[100, 512], [512, 512]], 6),
                                                                        ([[100, 3200], [3200, 512]], 1)]
    assert largek[0]["grid"] == largek[1]["grid"] and largek[0]["key"] != largek[1]["key"]


def test_reference_engines_match_expectations():
    """ACT linears are fp32 SIMT (matmul TF32 off), its convs TF32 (cuDNN default); pi0 is bf16 tensor core;
    every Diffusion Policy hot kernel belongs to a convolution (its U-Net's conv1d and up-sampling conv_transpose1d)."""
    hk = {w: json.load(open(os.path.join(REF_DIR, w, "hot_kernels.json"))) for w in WORKLOADS}
    for h in hk["act"]["hot"]:
        exp = "SIMT" if h["op"] == "aten::addmm" else "tensor core"
        assert h["ncu"]["engine_class"] == exp
    assert all(h["ncu"]["precision_path"].startswith("bf16") for h in hk["pi0"]["hot"])
    assert all(h["top_op"] in ("aten::conv1d", "aten::conv_transpose1d") for h in hk["diffusion_policy"]["hot"])


def test_swap_demo_log_proves_candidate_ran():
    d = os.path.join(REF_DIR, "swap_demo")
    res = json.load(open(os.path.join(d, "swap_demo.json")))
    recs = [json.loads(l) for l in open(os.path.join(d, "dispatch.jsonl"))]
    routed = [r for r in recs if r["routed"]]
    assert res["ok"] and len(routed) == 4 == res["calls_routed"]
    assert all(r["shapes"] == [[302, 1, 512], [3200, 512], [3200]] for r in routed)
    assert sum(res["candidate_kernel_launches_in_trace"].values()) == 4
    assert len(recs) == res["calls_logged"] and not any(r["routed"] for r in recs if r["shapes"][0] != [302, 1, 512])


def test_fallback_runs_measured_the_hot_kernel_itself():
    """data/references/h200/extra_check: tiny ACT profiled with --ncu-extra-all on the H200, i.e. every
    hot kernel measured by its own ncu run with a `^base$` filter and --launch-skip = its launch index
    among same-name launches of one inference. Each run's single row is the hot kernel itself (same
    function, template tokens and geometry) — including three generic ATen vectorized_elementwise_kernel
    instances, which only the launch index can tell apart. (On the device, rank 3 was reported unmatched:
    ncu drops namespace qualifiers such as binary_internal::, which `same_kernel` now ignores.)"""
    d = os.path.join(REF_DIR, "extra_check")
    hk = json.load(open(os.path.join(d, "hot_kernels.json")))
    runs = [r for r in hk["ncu"]["runs"] if r.get("for_rank")]
    assert len(runs) == len(hk["hot"]) == 6
    generic = 0
    for run in runs:
        h = hk["hot"][run["for_rank"] - 1]
        _, _, rs = rows(os.path.join(d, run["csv"]))
        assert len(rs) == 1
        r = rs[0]
        assert trace.same_kernel(h["name"], r["Kernel Name"]), (h["name"], r["Kernel Name"])
        assert ncu.launch_tuple(r["Grid Size"]) == tuple(h["grid"]) and ncu.launch_tuple(r["Block Size"]) == tuple(h["block"])
        generic += h["base_name"] == "vectorized_elementwise_kernel"
    assert generic == 3
    # and the three elementwise kernels are told apart: add is not mul
    add = next(h for h in hk["hot"] if "CUDAFunctor_add" in h["name"])
    mul_row = rows(os.path.join(d, next(r["csv"] for r in runs if "MulFunctor" in hk["hot"][r["for_rank"] - 1]["name"])))[2][0]
    assert not trace.same_kernel(add["name"], mul_row["Kernel Name"])
