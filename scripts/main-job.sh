#!/usr/bin/env bash
# The main job: installs the Debian packages, configures and builds the `release` preset
# (build tree build/release), then runs the main workload and prints its result.
#
# For now the workload is the regression sgemm (64x64, thread mode) on vxsim through the vortex.h
# runtime, on 1 core x 4 warps x 4 threads and on 4 cores x 8 warps x 8 threads, with the PERF
# lines of vx_dump_perf. The [reconstruct] step replaces it with the reference-bundle job.
# Idempotent: re-running only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release

dir=build/release/sdk/regression/sgemm
if [ ! -x "$dir/sgemm" ] || [ ! -f "$dir/kernel.vxbin" ]; then
  echo "main-job: $dir/sgemm or kernel.vxbin is missing (is the vortex.h runtime built?)" >&2
  exit 1
fi
status=0
for cfg in "1 4 4" "4 8 8"; do
  set -- $cfg
  echo "== sgemm -n64 on vxsim: $1 core(s) x $2 warps x $3 threads"
  (cd "$dir" && VXSIM_CORES=$1 VXSIM_WARPS=$2 VXSIM_THREADS=$3 ./sgemm -n64) || status=1
done
exit $status
