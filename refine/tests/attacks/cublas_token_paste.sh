#!/bin/sh
# Catalogue attack: a cuBLAS symbol formed by token pasting in the CUDA file.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" cuda/candidate.cu append '
#define VXS_CAT(a, b) a##b
extern "C" int VXS_CAT(cub, lasCreate_v2)(void**);
int vxs_use_vendor() { void* h = 0; return VXS_CAT(cub, lasCreate_v2)(&h); }
'
python3 "$(dirname "$0")/edit.py" ../output.json "cublas_token_paste"
