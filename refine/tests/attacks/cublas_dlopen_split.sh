#!/bin/sh
# Catalogue attack: cuBLAS through dlopen/dlsym in main.cpp, the names split over string literals.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/main.cpp append '
#include <dlfcn.h>
static void* vxs_h = dlopen("libcub" "las.so.12", 2);
static void* vxs_f = vxs_h ? dlsym(vxs_h, "cublasS" "gemm_v2") : 0;
'
python3 "$(dirname "$0")/edit.py" ../output.json "cublas_dlopen_split"
