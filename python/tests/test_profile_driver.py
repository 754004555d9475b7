"""Profiling driver: argument errors, a CPU dry run of the real driver, ncu helpers, trace ranking."""
import gzip
import json
import os
import subprocess
import sys

import pytest

from vxsynth_torch import ncu, profile, trace
from conftest import REPO

PY = os.path.join(REPO, "python")


@pytest.mark.parametrize("argv,msg", [
    ([], "missing WORKLOAD"),
    (["bert", "--out", "x"], "unknown workload 'bert'"),
    (["act"], "--out DIR is required"),
    (["act", "--out", "x", "--config", "huge"], "--config must be one of full, tiny"),
    (["act", "--out", "x", "--top", "0"], "--top must be >= 1"),
    (["act", "--out", "x", "--device", "tpu"], "--device must be auto, cuda or cpu"),
    (["--out", "x", "--"], "nothing after '--'"),
    (["act", "--out", "x", "--", "python", "s.py"], "not both"),
    (["act", "--out", "x", "--nvtx-range", "r"], "applies to '-- COMMAND' mode only"),
])
def test_argument_errors(argv, msg, capsys):
    assert profile.main(argv) == profile.EXIT_ARGS
    assert msg in capsys.readouterr().err


def test_cpu_dry_run(tmp_path):
    """The real driver end to end on the CPU (tiny ACT): trace, provenance, summary; no ncu."""
    out = tmp_path / "act"
    r = subprocess.run([sys.executable, "-m", "vxsynth_torch.profile", "act", "--config", "tiny", "--out",
                        str(out), "--warmup", "1", "--device", "cpu", "--no-ncu"],
                       env={**os.environ, "PYTHONPATH": PY}, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["workload"] == "act" and prov["clock_control"] == "none" and "date_utc" in prov
    data = trace.load_trace(str(out / "trace.json.gz"))
    ops = {e.get("name") for e in data["traceEvents"]}  # Debian's CPU torch writes the array format
    assert "aten::addmm" in ops and any("conv" in o for o in ops)
    with pytest.raises(trace.TraceError, match="no CUDA kernel events"):
        trace.rank_hot_kernels(data, 5, "trace.json.gz")


def test_script_mode_cpu(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import torch\nx = torch.randn(8, 4)\ny = torch.nn.functional.linear(x, torch.randn(3, 4))\n")
    r = subprocess.run([sys.executable, "-m", "vxsynth_torch.profile", "--out", str(tmp_path / "o"), "--no-ncu",
                        "--", "python", str(script)], env={**os.environ, "PYTHONPATH": PY},
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "o" / "trace.json.gz").exists()


# ------------------------------------------------------------------------------------------- ncu helpers
HEADER = ['"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","dram__bytes_read.sum","gpu__time_duration.sum"',
          '"","","","","","","","","","","","byte","ns"']


def test_parse_raw_csv_preamble_units_and_numbers():
    text = "\n".join(["==PROF== Connected to process 1", "program output, with a comma"] + HEADER +
                     ['"0","1","python3","h","nvjet_sm90_tst_64x16","1","7","(384, 1, 1)","(2, 64, 1)","0","9.0",'
                      '"2,097,152","n/a"'])
    header, units, rows = ncu.parse_raw_csv(text)
    assert header[0] == "ID" and units[-1] == "ns"
    assert ncu.number(rows[0]["dram__bytes_read.sum"]) == 2097152.0
    assert ncu.number(rows[0]["gpu__time_duration.sum"]) is None
    assert ncu.launch_tuple(rows[0]["Grid Size"]) == (2, 64, 1)


def test_missing_metric_is_named():
    header = HEADER[0].replace('"', "").split(",")
    with pytest.raises(ncu.NcuMissingMetricError, match="lts__t_sector_hit_rate.pct"):
        ncu.require_metrics(header, where="x.csv")
    assert len(ncu.missing_metrics(header)) == len(ncu.required_columns()) - 2


def test_no_header():
    with pytest.raises(ncu.NcuError, match="no ncu raw-CSV header"):
        ncu.parse_raw_csv("==PROF== nothing here\n")


def test_permission_error_detected():
    msg = "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters"
    with pytest.raises(ncu.NcuPermissionError, match="ERR_NVGPUCTRPERM"):
        ncu.check_output(msg)
    ncu.check_output("==PROF== Disconnected from process 1")


def test_capture_list_covers_every_required_column():
    cap = ncu.capture_metrics()
    assert len(set(cap)) == len(cap) and list(ncu.METRICS_SM90) == cap
    assert all(n in cap and (fb is None or fb in cap) for n, fb in ncu.required_columns())


def test_profile_command_flags():
    cmd = ncu.profile_command("ncu", ["python", "t.py"], "/tmp/r", ncu.kernel_regex(["b", "a"]))
    s = " ".join(cmd)
    assert "--clock-control none" in s and "--filter-mode per-launch-config" in s
    assert "-k regex:^(a|b)$" in s and s.endswith("python t.py") and "--profile-from-start off" in s


@pytest.mark.parametrize("name,base", [
    ("void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>"
     "(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float const*, float*)", "nchwToNhwcKernel"),
    ("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT"),
    ("void Kernel2<cutlass_75_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x1_tn_align1>(Params)", "Kernel2"),
    ("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 3, 64, 64>(float*, int)",
     "CatArrayBatchedCopy"),
])
def test_function_base_name(name, base):
    assert trace.function_base_name(name) == base


def test_same_kernel_separates_functors():
    add = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
           "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)")
    ncu_add = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char *, 3>>(int, T2, T3)"
    ncu_mul = "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>, std::array<char *, 3>>(int, T2, T3)"
    assert trace.same_kernel(add, ncu_add)
    assert not trace.same_kernel(add, ncu_mul)


def _trace(tmp_path):
    """A two-kernel trace with the event shapes of docs/ncu.md §6."""
    ev = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 100,
         "args": {"External id": 1, "Input Dims": [[64, 256], [512, 256], [512]]}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 10, "dur": 50,
         "args": {"External id": 2, "Input Dims": [[512], [64, 256], [256, 512], [], []],
                  "Input type": ["float", "float", "float", "Scalar", "Scalar"]}},
        {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernelEx", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
         "args": {"External id": 2, "correlation": 89}},
        {"ph": "X", "cat": "kernel", "name": "gemmA", "pid": 0, "tid": 7, "ts": 30, "dur": 30.0,
         "args": {"External id": 2, "correlation": 89, "grid": [2, 64, 1], "block": [384, 1, 1]}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 200, "dur": 10,
         "args": {"External id": 3, "Input Dims": [[64, 512]]}},
        {"ph": "X", "cat": "kernel", "name": "void at::native::relu<float>(int)", "pid": 0, "tid": 7, "ts": 300,
         "dur": 10.0, "args": {"External id": 3, "correlation": 90, "grid": [64, 1, 1], "block": [128, 1, 1]}},
    ]
    p = tmp_path / "t.json.gz"
    with gzip.open(p, "wt") as f:
        json.dump({"traceEvents": ev}, f)
    return str(p)


def test_rank_hot_kernels(tmp_path):
    data = trace.load_trace(_trace(tmp_path))
    r = trace.rank_hot_kernels(data, 5)
    assert r["total_kernel_us"] == 40.0 and r["distinct_kernels"] == 2
    h = r["hot"]
    assert [x["name"] for x in h] == ["gemmA", "void at::native::relu<float>(int)"]
    assert h[0]["share"] == 0.75 and h[1]["cumulative_share"] == 1.0
    assert h[0]["op"] == "aten::addmm" and h[0]["top_op"] == "aten::linear"
    assert h[0]["input_dims"][1] == [64, 256] and h[1]["base_name"] == "relu"
    assert h[0]["base_launch_index"] == 0 and h[0]["base_launches"] == 1


def test_bad_trace(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    with pytest.raises(trace.TraceError, match="bad.json"):
        trace.load_trace(str(p))
    p.write_text('{"foo": 1}')
    with pytest.raises(trace.TraceError, match="traceEvents"):
        trace.load_trace(str(p))


def test_classify_engine_and_precision():
    row = {ncu.TENSOR_PIPE_METRIC: "88.1", "sm__ops_path_tensor_src_tf32_dst_fp32.sum": "7,398,752,256"}
    c = profile.classify(row)
    assert c["engine_class"] == "tensor core" and c["precision_path"].startswith("tf32")
    row = {ncu.TENSOR_PIPE_METRIC: "2.4", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "1,000"}
    c = profile.classify(row)
    assert c["engine_class"] == "SIMT" and c["precision_path"] == "fp32 (SIMT)"


def test_capture_ops_table_matches_workloads():
    from vxsynth_torch import capture_ops as co
    from vxsynth_torch.workloads import act, diffusion_policy as dp, pi0
    ops = {o.name: o for o in co.OPS}
    a, d, p = act.CONFIGS["full"], dp.CONFIGS["full"], pi0.CONFIGS["full"]
    assert ops["linear_fp32_simt"].shapes[1] == (a.ffn, a.d_model)
    assert ops["matmul_bf16_tc"].shapes[0] == (1, p.heads, 3 * 256 + p.lang_tokens, p.head_dim)
    assert ops["conv1d_fp32_tf32"].shapes[1] == (d.down_dims[-1], d.down_dims[-1], d.kernel)
    assert not ops["conv2d_fp32_simt"].cudnn_tf32 and ops["conv2d_fp32_tf32"].cudnn_tf32
    y = co.make_call(co.OpSpec("t", "F.conv1d", ((1, 4, 6), (3, 4, 5)), "float32", True, "", "", (("padding", 2),)),
                     device="cpu")()
    assert tuple(y.shape) == (1, 3, 6)


def test_split_by_nvtx_keeps_lines():
    from vxsynth_torch import capture_ops as co
    hdr = ('"ID","Process ID","Process Name","Host Name","thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:'
           'Color:Msg_Type:Msg","Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",'
           '"Kernel Name","gpu__time_duration.sum"')
    rows = ['"0","1","p","h","1800  ""<default domain>:conv2d_fp32_simt:none:none:none:none:none:none""","","k1","1"',
            '"1","1","p","h","1800  ""<default domain>:linear_fp32_simt:none:none:none:none:none:none""","","k2","2"']
    parts = co.split_by_nvtx("\n".join(["==PROF== x", hdr, '"","","","","","","","ns"'] + rows))
    assert parts["conv2d_fp32_simt"][2:] == [rows[0]] and parts["linear_fp32_simt"][2:] == [rows[1]]
    assert parts["conv2d_fp32_tf32"][2:] == []


def test_help_exits_zero(capsys):
    # argparse's --help is a success, not an argument error.
    with pytest.raises(SystemExit) as e:
        profile.main(["--help"])
    assert e.value.code == 0
    assert "User script" in capsys.readouterr().out
