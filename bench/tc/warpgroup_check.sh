#!/usr/bin/env bash
# The GPU check of the warpgroup lowering (docs/codegen.md "Warpgroup MMA"), in three steps:
#   bench/tc/warpgroup_check.sh pack OUT [BUILD]   here: packs the π0 bundle's k2 and k5 seeds (REF, default
#       data/references/h100/pi0; data/references/h200/pi0 for the H200) with
#       tile/stage variants and design space 6's WMMA seed on the same card for comparison
#       (vxsynth_gpu_pack --kernel … --points), and the warpgroup test points with fresh inputs
#       (--test-points --match _wg_)
#   bench/tc/warpgroup_check.sh run OUT            on the GPU machine (carry OUT): builds and runs every
#       driver (source-output check against float64, time of 10 launches; ncu duration and DRAM bytes of
#       the π0 points next to the reference's), and the test points' drivers on their inputs
#   bench/tc/warpgroup_check.sh compare OUT [BUILD] here: the test points' Vortex side on vxsim on the
#       same inputs against the CUDA outputs (vxsynth_gpu_compare)
set -euo pipefail
mode=${1:-}; out=${2:-}
[ -n "$mode" ] && [ -n "$out" ] || { echo "usage: $0 pack|run|compare OUT [BUILD]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
build=${3:-$repo/build/release}
case "$mode" in
  pack)
    [ ! -e "$out" ] || { echo "$out exists: not overwriting it" >&2; exit 2; }
    pack="$build/codegen/vxsynth_gpu_pack"; ref=${REF:-$repo/data/references/h100/pi0}
    "$pack" "$out/k2" "$ref" --kernel k2 --points 192x256x64/s3,192x256x32/s5,192x128x64/fm64n128k16,96x128x32/fm16n16k16
    "$pack" "$out/k5" "$ref" --kernel k5 --points 256x192x64/s4/k4,128x192x64/s4/k2,64x192x64/s4/k1,128x96x64/fm16n16k16
    "$pack" "$out/points" --test-points --match _wg_ ;;
  run)
    { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; date -u; } \
      > "$out/provenance.txt" 2>&1
    NCU=1 NCU_POINTS=. bash "$here/run_h200.sh" "$out/k2" 16 | tee "$out/k2.txt"
    NCU=1 NCU_POINTS=. bash "$here/run_h200.sh" "$out/k5" 16 | tee "$out/k5.txt"
    bash "$out/points/run_all.sh" | tee "$out/points.txt"
    for d in "$out"/points/*/; do [ -f "$d/data/out.bin" ] && mv "$d/data/out.bin" "$d/data/cuda_out.bin"; done ;;
  compare)
    "$build/codegen/vxsynth_gpu_compare" "$out/points" "$build/sdk" | tee "$out/compare.txt" ;;
  *) echo "usage: $0 pack|run|compare OUT [BUILD]" >&2; exit 2 ;;
esac
