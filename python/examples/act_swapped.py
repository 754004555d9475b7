"""A user's own script for the driver's '-- COMMAND' mode: ACT (full, batch 1) with its encoder FFN
linear1 (input (302,1,512), weight (3200,512)) routed to the hand-written CUDA kernel of
vxsynth_torch.swap_demo, 2 warm-up + 3 measured steps, each inside the NVTX range "act_step".

  python -m vxsynth_torch.profile --out DIR --nvtx-range act_step -- python python/examples/act_swapped.py

The dispatch log goes to $VXSYNTH_DISPATCH_DIR/dispatch_<pid>.jsonl (default: current folder).
"""
import os

import torch

from vxsynth_torch.swap import OpSwap, SwapTarget, load_cuda_proxy
from vxsynth_torch.swap_demo import CPP_SRC, CUDA_SRC, CudaLinearProxy
from vxsynth_torch.workloads import act


def main() -> None:
    ext = load_cuda_proxy("vx_linear_ext", CUDA_SRC, CPP_SRC, ["linear_fwd"], extra_cuda_cflags=["-O3"])
    model, inputs = act.build("full", device="cuda")
    c = act.CONFIGS["full"]
    target = SwapTarget("linear", ((302, 1, c.d_model), (c.ffn, c.d_model), (c.ffn,)), CudaLinearProxy(ext),
                        torch.float32, name="act.encoder.linear1")
    log = os.path.join(os.environ.get("VXSYNTH_DISPATCH_DIR", "."), f"dispatch_{os.getpid()}.jsonl")
    with torch.inference_mode(), OpSwap([target], log) as sw:
        for _ in range(5):
            with torch.cuda.nvtx.range("act_step"):
                model(*inputs)
                torch.cuda.synchronize()
    print(f"act_swapped: {len(sw.routed())} routed of {len(sw.records)} logged calls -> {log}")


if __name__ == "__main__":
    main()
