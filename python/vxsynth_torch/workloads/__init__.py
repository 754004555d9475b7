"""Robot-learning workloads (random weights, batch 1) built exactly per docs/workloads.md.

`WORKLOADS[name].build(config, device, dtype)` -> (model, inputs); one inference is `model(*inputs)`.
Each has a `full` configuration (the real sizes) and a `tiny` one that runs on a CPU in seconds.
"""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Tuple

#: Workload names: the CLI's WORKLOAD argument, the module names here and the folder names under
#: data/references/h200/. The modules (which import torch) are loaded on first use.
NAMES: Tuple[str, ...] = ("act", "diffusion_policy", "pi0")


class _Workloads(dict):
    """name -> module, importing a workload module (and torch) only when it is looked up."""

    def __missing__(self, name: str) -> ModuleType:
        if name not in NAMES:
            raise KeyError(name)
        mod = importlib.import_module(f"{__name__}.{name}")
        self[name] = mod
        return mod

    def __contains__(self, name: object) -> bool:
        return name in NAMES

    def __iter__(self):
        return iter(NAMES)

    def __len__(self) -> int:
        return len(NAMES)


#: Workload name -> module with CONFIGS and build().
WORKLOADS = _Workloads()


def get(name: str) -> ModuleType:
    """The workload module for `name`; raises ValueError naming the known workloads."""
    try:
        return WORKLOADS[name]
    except KeyError:
        raise ValueError(f"unknown workload '{name}'; known: {', '.join(sorted(NAMES))}") from None


def __getattr__(name: str) -> ModuleType:
    """`workloads.act` etc. as attributes, imported on first use."""
    if name in NAMES:
        return WORKLOADS[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
