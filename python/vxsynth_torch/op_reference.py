"""The original PyTorch op on a candidate's sampled inputs (paper §3.5 source-output check) when the
candidate is profiled standalone: the reference a TF32 or BF16 candidate is compared with is the
framework's own kernel (cuBLAS/cuDNN on the GPU) under the precision path's TF32 flags, as in the
workload (swap_run.py step 2), not float64 on the CPU.

usage: python -m vxsynth_torch.op_reference --spec SPEC.json --data DIR [--device auto|cuda|cpu]

SPEC (`cuda/op_reference_spec.json`, written by refine's standalone profiler): the operator (check's
OpSpec), storage dtype, operand names and shapes, output shape and the TF32 flags of the path.
Reads DIR/<operand>.bin (check's files), writes DIR/torch_out.bin (the output in the storage dtype,
check's file format). Exit status: 0 written, 2 bad arguments, spec or input files.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict

from .swap_run import SpecError, apply_tf32, original_op, original_operands, operand_tensors, write_tensor

EXIT_OK, EXIT_ARGS = 0, 2

#: Spec keys this module reads; a spec without one is refused with its name.
SPEC_KEYS = ("schema", "op", "storage", "operands", "output_shape", "tf32")
SCHEMA = "vxsynth.op_reference_spec/1"


def load_spec(path: str) -> Dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise SpecError(f"{path}: {e}") from None
    missing = [k for k in SPEC_KEYS if k not in spec]
    if missing:
        raise SpecError(f"{path}: missing field(s) {', '.join(missing)}")
    if spec["schema"] != SCHEMA:
        raise SpecError(f"{path}: schema '{spec['schema']}' is not {SCHEMA}")
    if spec["storage"] not in ("fp32", "bf16"):
        raise SpecError(f"{path}: storage '{spec['storage']}' is not fp32 or bf16")
    return spec


def reference_output(spec: Dict[str, Any], data: str, device: str):
    """The original op of `spec` on the operands in `data`, on `device`, under the spec's TF32 flags."""
    import torch
    import torch.nn.functional as F
    apply_tf32(spec["tf32"])
    dtype = torch.bfloat16 if spec["storage"] == "bf16" else torch.float32
    originals = {"linear": F.linear, "matmul": torch.matmul, "bmm": torch.bmm, "conv1d": F.conv1d,
                 "conv2d": F.conv2d}
    ts = operand_tensors(spec, data, dtype, device)
    with torch.inference_mode():
        out = original_op(spec["op"]["family"], spec, originals, original_operands(spec, ts))
    if device == "cuda":
        torch.cuda.synchronize()
    want = 1
    for d in spec["output_shape"]:
        want *= int(d)
    if out.numel() != want:
        raise SpecError(f"the op gave {out.numel()} elements, the spec's output shape {spec['output_shape']} "
                        f"has {want}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vxsynth_torch.op_reference",
                                 description="The original PyTorch op on a candidate's sampled inputs.")
    ap.add_argument("--spec", required=True, help="op_reference_spec.json written by the standalone profiler")
    ap.add_argument("--data", required=True, help="folder with the sampled inputs (check's <operand>.bin)")
    ap.add_argument("--device", default="auto", choices=("auto", "cuda", "cpu"))
    a = ap.parse_args(argv)
    import torch
    device = ("cuda" if torch.cuda.is_available() else "cpu") if a.device == "auto" else a.device
    try:
        out = reference_output(load_spec(a.spec), a.data, device)
        write_tensor(os.path.join(a.data, "torch_out.bin"), out.reshape(-1))
    except (SpecError, OSError) as e:
        print(f"op_reference: error: {e}", file=sys.stderr)
        return EXIT_ARGS
    print(f"op_reference: {out.numel()} elements on {device} -> {os.path.join(a.data, 'torch_out.bin')}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
