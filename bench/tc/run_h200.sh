#!/usr/bin/env bash
# Builds every driver of a vxsynth_gpu_pack directory with nvcc in parallel, runs each (one RESULT
# line: source-output check vs float64 on the GPU and the candidate's time per launch), then times
# the PyTorch op of each point the same way (torch_time.py). For the device: nvcc, a GPU, torch.
# With NCU=1, each candidate matching NCU_POINTS (a grep -E pattern on the point's directory name,
# default _seed$) also runs once under Nsight Compute as the references were captured (default
# cache and clock control, the third and fourth matching kernels: the second launch of GEMM + reduce, or of the GEMM alone) and prints one line:
#   NCU <point> cand_ns=<GEMM + reduce/epilogue kernel> ref_ns=<reference> ratio=<cand/ref>
#       dram_cand=<bytes read+written> dram_ref=<bytes>
# the reference values being the bundle's ncu columns (reference.txt, written by vxsynth_gpu_pack).
# usage: bench/tc/run_h200.sh PACK_DIR [JOBS]
set -u
pack=$1
jobs=${2:-16}
here=$(cd "$(dirname "$0")" && pwd)
NVCC=${NVCC:-nvcc}
# the pack's nvcc target (vxsynth_gpu_pack writes it from the architecture table)
target=$(cat "$pack/nvcc_target") || { echo "$pack/nvcc_target missing: re-pack with vxsynth_gpu_pack" >&2; exit 2; }
NCU_BIN=${NCU_BIN:-ncu}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$NVCC --version | tail -2
date -u
ls -d "$pack"/*/ | xargs -P "$jobs" -I{} sh -c "cd {} && $NVCC $target -std=c++17 -O3 -o driver driver.cu > build.log 2>&1 || echo BUILD-FAILED {}"
for d in "$pack"/*/; do
  if [ -x "$d/driver" ]; then (cd "$d" && timeout 60 ./driver) || echo "RESULT $(basename "$d") RUN-FAILED"; fi
done
# PyTorch side, same timing (mean of 10 back-to-back launches; for small kernels the Python
# launch overhead dominates: compare with the reference ncu duration instead).
if [ "${TORCH_TIME:-0}" = 1 ]; then python3 "$here/torch_time.py" "$pack"; fi
if [ "${NCU:-0}" = 1 ]; then
  "$NCU_BIN" --version | tail -1
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
  for d in "$pack"/*/; do
    name=$(basename "$d")
    echo "$name" | grep -Eq "${NCU_POINTS:-_seed\$}" || continue
    [ -x "$d/driver" ] || { echo "NCU $name NOT-BUILT"; continue; }
    (cd "$d" && timeout 300 "$NCU_BIN" -k "regex:vxs_(gemm|epilogue)_kernel" --launch-skip 2 --launch-count 2 --metrics "$metrics" \
       --csv --page raw --print-units base ./driver > ncu.csv 2> ncu.log) || { echo "NCU $name NCU-FAILED"; continue; }
    # Sum the metric columns over the profiled kernels of one launch (GEMM, and the split-K reduce
    # or separate epilogue when the candidate has one: launch-skip/count cover two vxs_ kernels).
    awk -F'","' -v name="$name" -v ref="$(cat "$d/reference.txt" 2>/dev/null)" '
      # The driver'"'"'s own stdout (its RESULT line) comes before ncu'"'"'s CSV: the header is the line
      # that starts with "ID", the line after it holds the units.
      !hdr { if ($0 ~ /^"ID"/) { for (i = 1; i <= NF; ++i) { gsub(/"/, "", $i); col[$i] = i } hdr = 1; units = 1 } next }
      units { units = 0; next }
      function v(c,  x) { x = $col[c]; gsub(/[",]/, "", x); return x + 0 }
      { k = $col["Kernel Name"]
        if (seen[k]++) next
        t += v("gpu__time_duration.sum"); b += v("dram__bytes_read.sum") + v("dram__bytes_write.sum") }
      END {
        n = split(ref, f, " "); rt = 0; rb = 0
        for (i = 2; i <= n; ++i) { split(f[i], kv, "="); if (kv[1] == "gpu__time_duration.sum") rt = kv[2]; else rb += kv[2] }
        printf "NCU %s cand_ns=%.0f ref_ns=%.0f ratio=%.2f dram_cand=%.0f dram_ref=%.0f\n", name, t, rt, (rt > 0 ? t / rt : 0), b, rb }' "$d/ncu.csv"
  done
fi
