#!/usr/bin/env bash
# Builds and runs the warpgroup-MMA probe (bench/tc/wgmma_probe.cu; docs/codegen.md "Warpgroup MMA
# probe") on the GPU machine: the card and tool versions, ptxas's registers per variant, the check
# and RESULT lines, and with NCU=1 one launch of each variant under Nsight Compute (duration,
# tensor-pipe activity, L2 bytes, DRAM bandwidth, occupancy, instructions). For the device: nvcc
# (CUDA 12.3 or later, sm_90a), an sm_90 GPU, ncu for NCU=1.
# usage: bench/tc/wgmma_probe.sh [OUT_DIR] [M N K]   (default OUT_DIR /tmp/wgmma_probe; pi0 k2's shape)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/wgmma_probe}
shift || true
NVCC=${NVCC:-nvcc}
NCU_BIN=${NCU_BIN:-ncu}
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || echo "no nvidia-smi"; "$NVCC" --version | tail -1;
  date -u '+%Y-%m-%d %H:%M UTC'; } 2>&1 | tee "$out/provenance.txt"
repo=$(cd "$here/../.." && pwd)
"$NVCC" -gencode arch=compute_90a,code=sm_90a -O3 -std=c++20 -I"$repo/codegen/runtime/common" -I"$repo/check/include" \
  -I"$repo/core/include" -Xptxas -v -o "$out/wgmma_probe" "$here/wgmma_probe.cu" \
  > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
grep -E "Compiling entry|registers|spill" "$out/build.log"
"$out/wgmma_probe" "$@" | tee "$out/probe.txt" || echo "wgmma_probe: a variant failed its check or did not run (RESULT lines above)"
if [ "${NCU:-0}" = 1 ]; then
  "$NCU_BIN" --version | tail -1
  m=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_elapsed
  m=$m,lts__t_bytes.sum,dram__bytes.sum.per_second,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
  # One launch of each variant (the template arguments in the RESULT lines' order).
  for v in "128, 64, 4, 0" "128, 32, 6, 0" "256, 64, 3, 0" "256, 32, 4, 0" "128, 64, 4, 1" "256, 32, 4, 1" "256, 32, 5, 1"; do
    echo "== ncu wgmma_gemm<$v>"
    timeout 120 "$NCU_BIN" --kernel-name-base demangled -k "regex:wgmma_gemm<$v>" -c 1 --metrics "$m" \
      "$out/wgmma_probe" "$@" 2>&1 | grep -E "^\s+(gpu__|sm__|lts__|dram__|smsp__)" || echo "NCU-FAILED"
  done | tee "$out/ncu.txt"
fi
