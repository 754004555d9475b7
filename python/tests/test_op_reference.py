"""vxsynth_torch.op_reference: the original PyTorch op on a standalone candidate's sampled inputs
(the source-output check's reference when the candidate is not profiled in its workload)."""
import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vxsynth_torch import op_reference  # noqa: E402


def write_spec(tmp_path, spec):
    path = tmp_path / "op_reference_spec.json"
    path.write_text(json.dumps(spec))
    return str(path)


def linear_spec(m=5, n=7, k=11):
    return {"schema": op_reference.SCHEMA,
            "op": {"family": "linear", "has_bias": True, "activation": "none", "a_batch_stride": -1,
                   "b_batch_stride": -1, "gemm": {"batch": 1, "m": m, "n": n, "k": k}},
            "storage": "fp32", "path": "fp32",
            "operands": [{"name": "x", "shape": [m, k]}, {"name": "weight", "shape": [n, k]},
                         {"name": "bias", "shape": [n]}],
            "output_shape": [m, n], "tf32": {"matmul.allow_tf32": False, "cudnn.allow_tf32": False}}


def test_linear_output_is_x_times_weight_transposed_plus_bias(tmp_path):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 11)).astype("<f4")
    w = rng.standard_normal((7, 11)).astype("<f4")
    b = rng.standard_normal(7).astype("<f4")
    for name, a in (("x", x), ("weight", w), ("bias", b)):
        (tmp_path / f"{name}.bin").write_bytes(a.tobytes())
    assert op_reference.main(["--spec", write_spec(tmp_path, linear_spec()), "--data", str(tmp_path),
                              "--device", "cpu"]) == 0
    got = np.frombuffer((tmp_path / "torch_out.bin").read_bytes(), dtype="<f4").reshape(5, 7)
    np.testing.assert_allclose(got, x.astype(np.float64) @ w.T.astype(np.float64) + b, rtol=1e-5, atol=1e-5)


def test_bmm_with_a_broadcast_b_uses_the_batch_strides(tmp_path):
    spec = {"schema": op_reference.SCHEMA,
            "op": {"family": "bmm", "has_bias": False, "activation": "none", "a_batch_stride": -1,
                   "b_batch_stride": 0, "gemm": {"batch": 3, "m": 2, "n": 4, "k": 5}},
            "storage": "fp32", "path": "fp32",
            "operands": [{"name": "a", "shape": [3 * 2 * 5]}, {"name": "b", "shape": [5 * 4]}],
            "output_shape": [3, 2, 4], "tf32": {}}
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 2, 5)).astype("<f4")
    b = rng.standard_normal((5, 4)).astype("<f4")
    (tmp_path / "a.bin").write_bytes(a.tobytes())
    (tmp_path / "b.bin").write_bytes(b.tobytes())
    assert op_reference.main(["--spec", write_spec(tmp_path, spec), "--data", str(tmp_path), "--device", "cpu"]) == 0
    got = np.frombuffer((tmp_path / "torch_out.bin").read_bytes(), dtype="<f4").reshape(3, 2, 4)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_bad_spec_and_missing_inputs_are_refused_with_exit_2(tmp_path, capsys):
    spec = linear_spec()
    del spec["tf32"]
    assert op_reference.main(["--spec", write_spec(tmp_path, spec), "--data", str(tmp_path), "--device", "cpu"]) == 2
    assert "missing field(s) tf32" in capsys.readouterr().err
    assert op_reference.main(["--spec", write_spec(tmp_path, linear_spec()), "--data", str(tmp_path),
                              "--device", "cpu"]) == 2
    assert "x.bin" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "torch_out.bin")
