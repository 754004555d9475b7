"""GPU tests (marker `gpu`; skipped without CUDA). Run on the H200 with
`PYTHONPATH=python python3 -m pytest -q -m gpu python/tests`; outputs are recorded in docs/gpu-data.md."""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO

pytestmark = pytest.mark.gpu
PY = os.path.join(REPO, "python")


def test_profile_tiny_act_on_gpu(tmp_path):
    r = subprocess.run([sys.executable, "-m", "vxsynth_torch.profile", "act", "--config", "tiny", "--out",
                        str(tmp_path), "--top", "3", "--no-ncu"], env={**os.environ, "PYTHONPATH": PY},
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    hot = json.loads((tmp_path / "hot_kernels.json").read_text())
    assert len(hot["hot"]) == 3 and 0 < hot["ranking"]["coverage"] <= 1


def test_swap_demo_tiny_on_gpu(tmp_path):
    r = subprocess.run([sys.executable, "-m", "vxsynth_torch.swap_demo", "--config", "tiny", "--out", str(tmp_path)],
                       env={**os.environ, "PYTHONPATH": PY}, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads((tmp_path / "swap_demo.json").read_text())
    assert res["ok"] and res["calls_routed"] == 4


def test_extra_runs_select_the_right_launch(tmp_path):
    """The per-kernel fallback (name filter + --launch-skip = launch index from the trace) measures the
    hot kernel itself: every hot kernel of tiny ACT, including generic ATen elementwise templates, gets
    a row of the same kernel and geometry."""
    r = subprocess.run([sys.executable, "-m", "vxsynth_torch.profile", "act", "--config", "tiny", "--out",
                        str(tmp_path), "--top", "6", "--ncu-extra-all"], env={**os.environ, "PYTHONPATH": PY},
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    hot = json.loads((tmp_path / "hot_kernels.json").read_text())
    assert hot["ncu"]["unmatched_ranks"] == []
    assert all(h["ncu"]["csv"].startswith("ncu_raw_extra") for h in hot["hot"])
