"""vxsynth_torch: the PyTorch side of vxsynth (paper §2.3, §3.1, §3.4, §4.1).

Modules (one concept each):
  workloads/     ACT, Diffusion Policy, pi0 at their real sizes (`full`) and CPU-sized (`tiny`)
  profile        the GPU profiling driver (`python -m vxsynth_torch.profile WORKLOAD --out DIR`)
  trace          hot-kernel ranking of a torch.profiler Chrome trace (the C++ rule, via rules)
  ncu            Nsight Compute metric list (from the C++ table), command lines, raw-CSV reading and checks
  provenance     card / driver / CUDA / ncu / torch versions, command, date
  swap           swapped execution: route matching F.linear/matmul/conv calls to a CUDA candidate
  capture_ops    operator captures for the importer tests (tests/data/h200)
  swap_demo      the ACT swap demo (a hand-written CUDA kernel compiled with load_inline)
  report         markdown hot-kernel tables (docs/workloads.md) from the driver's outputs
  rules          the C++ side's rules (metric list, kernel-name rules, hot-kernel grouping) via `vxsynth`
  tcn_fixture    the TCN trace fixtures of tests/data/tcn
  device_batch   several capture steps in one device call
"""
