#!/bin/sh
# Catalogue attack: __nv_atomic_fetch_add in the CUDA file.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" cuda/candidate.cu append '
__device__ int vxs_nv(int* p) { return __nv_atomic_fetch_add(p, 1, 0, 0); }
'
python3 "$(dirname "$0")/edit.py" ../output.json "nv_atomic"
