"""Version guards so the same code runs on Debian's CPU torch 1.13 and on torch 2.x (H200 image).

Nothing here changes numerics; it only picks an API that exists in the running torch.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

import torch

#: (major, minor) of the running torch, e.g. (1, 13) or (2, 11).
TORCH_VERSION = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])


def cuda_available() -> bool:
    """True when a CUDA device is usable (False on the CI machine)."""
    return torch.cuda.is_available()


def default_device() -> torch.device:
    """`cuda` when available, else `cpu`: workloads are built directly on the target device."""
    return torch.device("cuda" if cuda_available() else "cpu")


@contextlib.contextmanager
def inference_mode() -> Iterator[None]:
    """`torch.inference_mode()` (exists since 1.9), kept in one place."""
    with torch.inference_mode():
        yield


def nvtx_range(name: str):
    """NVTX push/pop range on CUDA builds; a no-op context elsewhere (torch.cuda.nvtx needs CUDA)."""
    if cuda_available():
        return torch.cuda.nvtx.range(name)
    return contextlib.nullcontext()
