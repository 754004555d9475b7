"""Every tool (`python -m vxsynth_torch.X`) answers --help with exit status 0 without importing torch:
a `torch` package that raises on import is put first on the path."""
import os
import subprocess
import sys

import pytest

from conftest import REPO

TOOLS = ("profile", "capture_ops", "swap_demo", "swap_run", "op_reference", "report", "figures", "device_batch", "tcn_fixture", "_script_trace", "mem_profile")


@pytest.mark.parametrize("tool", TOOLS)
def test_help_without_torch(tool, tmp_path):
    fake = tmp_path / "torch"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('torch imported by --help')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.path.join(REPO, "python")])}
    r = subprocess.run([sys.executable, "-m", f"vxsynth_torch.{tool}", "--help"], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "usage" in r.stdout.lower()


def test_every_tool_is_listed():
    """A module with a `__main__` block is a tool and must be in TOOLS."""
    pkg = os.path.join(REPO, "python", "vxsynth_torch")
    mains = {f[:-3] for f in os.listdir(pkg) if f.endswith(".py")
             and 'if __name__ == "__main__":' in open(os.path.join(pkg, f), encoding="utf-8").read()}
    assert mains == set(TOOLS)
