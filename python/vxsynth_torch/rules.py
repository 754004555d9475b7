"""The rules this package shares with the C++ side, read from the `vxsynth` executable (never re-typed):
the ncu metric list and tensor-pipe rule (`vxsynth metrics --json`), the kernel-name rules
(`vxsynth kernel-name --json`: base name, family, engine, role, tile) and the hot-kernel grouping
(`vxsynth hot --json TRACE`: one group per kernel name, grid, block and op signature).

Where the executable is found, in this order:
  1. the environment variable VXSYNTH_BIN (a path to `vxsynth`);
  2. the build tree of the checkout this package sits in: <checkout>/build/release/cli/vxsynth
     (what `cmake --preset release && cmake --build --preset release --target vxsynth` writes; CI's
     pytest runs after that build);
  3. an unpacked device pack in the checkout: <checkout>/.devcarry/vxdev/bin/vxsynth
     (scripts/device-pack.sh packs the executable with the shared libraries a GPU machine may lack;
     `tar -C .devcarry -xJf .devcarry/vxdev.tar.xz` unpacks it there);
  4. `vxsynth` on PATH.
If none exists, RulesError says so and how to get one. An executable inside a device pack runs with
the pack's lib/ on LD_LIBRARY_PATH (for that process only).
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from typing import Any, Dict, Iterable, List, Optional, Sequence

_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class RulesError(RuntimeError):
    """The C++ side could not be asked (no `vxsynth` executable: `returncode` None) or refused the input
    (`returncode` 2: its message names the file and what is wrong)."""

    def __init__(self, message: str, returncode: Optional[int] = None) -> None:
        super().__init__(message)
        self.returncode = returncode


def candidates() -> List[str]:
    """Paths tried for the executable, in order (VXSYNTH_BIN first when set)."""
    out = []
    env = os.environ.get("VXSYNTH_BIN")
    if env:
        out.append(env)
    out.append(os.path.join(_CHECKOUT, "build", "release", "cli", "vxsynth"))
    out.append(os.path.join(_CHECKOUT, ".devcarry", "vxdev", "bin", "vxsynth"))
    on_path = shutil.which("vxsynth")
    if on_path:
        out.append(on_path)
    return out


def find_vxsynth() -> Optional[str]:
    """The first executable of `candidates()`, or None."""
    for c in candidates():
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def vxsynth() -> str:
    """The executable; raises RulesError naming every place looked at and how to provide one."""
    exe = find_vxsynth()
    if exe:
        return exe
    env = os.environ.get("VXSYNTH_BIN")
    tried = "\n  ".join(candidates() + ["vxsynth on PATH"])
    raise RulesError(
        "the vxsynth executable was not found; vxsynth_torch reads the ncu metric list, the kernel-name rules and "
        "the hot-kernel grouping from it.\n  tried:\n  " + tried + "\n"
        + (f"  (VXSYNTH_BIN={env} is not an executable file)\n" if env else "")
        + "Build it (cmake --preset release && cmake --build --preset release --target vxsynth), or on a machine "
        "without the build dependencies unpack scripts/device-pack.sh's tarball (tar -C .devcarry -xJf "
        ".devcarry/vxdev.tar.xz), or set VXSYNTH_BIN=/path/to/vxsynth.")


def env_for(exe: str) -> Dict[str, str]:
    """The environment to run `exe` in: a device pack's lib/ first on LD_LIBRARY_PATH."""
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(exe)))
    lib = os.path.join(root, "lib")
    if os.path.isfile(os.path.join(root, "PACKED")) and os.path.isdir(lib):  # a device pack
        env["LD_LIBRARY_PATH"] = lib + (os.pathsep + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def run_json(args: Sequence[str], stdin: Optional[str] = None, timeout: float = 600) -> Any:
    """`vxsynth ARGS` parsed as JSON; RulesError with the command and its stderr when it fails."""
    exe = vxsynth()
    cmd = [exe] + list(args)
    try:
        r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout, env=env_for(exe))
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RulesError(f"{' '.join(cmd)}: {e}") from None
    if r.returncode != 0:
        raise RulesError(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}", r.returncode)
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError as e:
        raise RulesError(f"{' '.join(cmd)}: output is not JSON ({e})") from None


@functools.lru_cache(maxsize=None)
def metrics(arch: str = "sm_90") -> Dict[str, Any]:
    """`vxsynth metrics --json --arch ARCH`: 'ncu_metrics' (the --metrics list to capture), 'tensor_pipe'
    ({'metrics', 'threshold_pct'}) and 'metrics' (the ten signature rows)."""
    return run_json(["metrics", "--json", "--arch", arch])


def ncu_metrics(arch: str = "sm_90") -> List[str]:
    """Every ncu metric a capture on ARCH must request (the C++ metric table's list)."""
    return list(metrics(arch)["ncu_metrics"])


@functools.lru_cache(maxsize=None)
def kernel_name_rules() -> List[Dict[str, Any]]:
    """The kernel-name rule table rows (id, pattern, engine, library, role, tile_syntax, source)."""
    return run_json(["kernel-name", "--rules", "--json"])["rules"]


_NAME_CACHE: Dict[str, Dict[str, Any]] = {}


def kernel_names(names: Iterable[str]) -> List[Dict[str, Any]]:
    """What the kernel-name rules say about each name (base_name, rule, engine, library, role, tile), in
    input order; one `vxsynth kernel-name --json -` call for the names not asked before."""
    names = list(names)
    for n in names:
        if "\n" in n or "\r" in n:
            raise ValueError(f"kernel name holds a line break: {n[:80]!r}")
    todo = sorted({n for n in names if n not in _NAME_CACHE and n})
    if todo:
        for row in run_json(["kernel-name", "--json", "-"], stdin="\n".join(todo) + "\n")["names"]:
            _NAME_CACHE[row["name"]] = row
    empty = {"name": "", "base_name": "", "rule": None, "engine": None, "library": None, "role": "main", "tile": None}
    return [_NAME_CACHE.get(n, empty) if n else empty for n in names]


def base_names(names: Iterable[str]) -> List[str]:
    """Function base names (ncu's --kernel-name-base function form) of `names`."""
    return [r["base_name"] for r in kernel_names(names)]


def hot(trace_path: str, top: int = 0) -> Dict[str, Any]:
    """`vxsynth hot --json TRACE --top K`: the C++ ranking of a torch trace (0 = every group)."""
    return run_json(["hot", "--json", str(trace_path), "--top", str(top)])
