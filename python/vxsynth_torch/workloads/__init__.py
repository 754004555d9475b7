"""Robot-learning workloads (random weights, batch 1) built exactly per docs/robotics-workloads.md.

`WORKLOADS[name].build(config, device, dtype)` -> (model, inputs); one inference is `model(*inputs)`.
Each has a `full` configuration (the real sizes) and a `tiny` one that runs on a CPU in seconds.
"""
from __future__ import annotations

from types import ModuleType
from typing import Dict

from . import act, diffusion_policy, pi0

#: Workload name -> module with CONFIGS and build(); names are the CLI's WORKLOAD argument and the
#: folder names under data/references/h200/.
WORKLOADS: Dict[str, ModuleType] = {"act": act, "diffusion_policy": diffusion_policy, "pi0": pi0}


def get(name: str) -> ModuleType:
    """The workload module for `name`; raises ValueError naming the known workloads."""
    try:
        return WORKLOADS[name]
    except KeyError:
        raise ValueError(f"unknown workload '{name}'; known: {', '.join(sorted(WORKLOADS))}") from None
