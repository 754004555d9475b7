#!/usr/bin/env bash
# Builds every driver of a vxsynth_gpu_pack directory with nvcc in parallel, runs each (one RESULT
# line: source-output check vs float64 on the GPU and the candidate's time per launch), then times
# the PyTorch op of each point the same way (torch_time.py). For the device: nvcc, a GPU, torch.
# usage: bench/tc/run_h200.sh PACK_DIR [JOBS]
set -u
pack=$1
jobs=${2:-16}
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-nvcc}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$NVCC --version | tail -2
date -u
ls -d "$pack"/*/ | xargs -P "$jobs" -I{} sh -c "cd {} && $NVCC -arch=sm_90 -std=c++17 -O3 -o driver driver.cu > build.log 2>&1 || echo BUILD-FAILED {}"
for d in "$pack"/*/; do
  if [ -x "$d/driver" ]; then (cd "$d" && timeout 60 ./driver) || echo "RESULT $(basename "$d") RUN-FAILED"; fi
done
# PyTorch side, same timing (mean of 10 back-to-back launches; for small kernels the Python
# launch overhead dominates: compare with the reference ncu duration instead).
if [ "${TORCH_TIME:-0}" = 1 ]; then python3 "$here/torch_time.py" "$pack"; fi
