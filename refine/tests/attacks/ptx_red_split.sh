#!/bin/sh
# Catalogue attack: a PTX red.global split across string literals (inline asm).
set -e
cd sources
python3 "$(dirname "$0")/edit.py" cuda/candidate.cu append '
__device__ void vxs_red(float* p, float v) { asm volatile("re" "d.global.add.f32 [%0], %1;" :: "l"(p), "f"(v)); }
'
python3 "$(dirname "$0")/edit.py" ../output.json "ptx_red_split"
