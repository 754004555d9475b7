"""Helper run by the driver in '-- COMMAND' mode: runs a user's script under torch.profiler (CPU+CUDA,
record_shapes) and writes a gzipped Chrome trace. torch.cuda.nvtx.range_push/range_pop/range are
wrapped so every NVTX range also opens a record_function of the same name; the driver then ranks only
kernels launched inside that range (all instances but the first, i.e. after warm-up).
usage: python -m vxsynth_torch._script_trace TRACE.json [--nvtx-range R] -- script.py ARGS
"""
from __future__ import annotations

import contextlib
import gzip
import os
import runpy
import shutil
import sys


USAGE = "usage: python -m vxsynth_torch._script_trace TRACE.json [--nvtx-range R] -- script.py ARGS"


def main(argv) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE + "\nRuns the script under torch.profiler (CPU + CUDA, record_shapes) and writes TRACE.json.gz.")
        return 0
    import torch
    from torch.profiler import ProfilerActivity, profile
    if "--" not in argv:
        print(USAGE, file=sys.stderr)
        return 2
    i = argv.index("--")
    opts, cmd = argv[:i], argv[i + 1:]
    out = opts[0]
    stack = []
    if torch.cuda.is_available():
        nv = torch.cuda.nvtx
        push0, pop0 = nv.range_push, nv.range_pop

        def push(msg):
            rf = torch.autograd.profiler.record_function(msg)
            rf.__enter__()
            stack.append(rf)
            return push0(msg)

        def pop():
            if stack:
                stack.pop().__exit__(None, None, None)
            return pop0()

        @contextlib.contextmanager
        def rng(msg, *a, **k):
            push(msg.format(*a, **k) if (a or k) else msg)
            try:
                yield
            finally:
                pop()
        nv.range_push, nv.range_pop, nv.range = push, pop, rng
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    sys.argv = list(cmd)
    with profile(activities=acts, record_shapes=True) as prof:
        runpy.run_path(cmd[0], run_name="__main__")
        if torch.cuda.is_available():
            torch.cuda.synchronize()
    prof.export_chrome_trace(out)
    with open(out, "rb") as f, gzip.open(out + ".gz", "wb") as g:
        shutil.copyfileobj(f, g)
    os.remove(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
