#!/usr/bin/env bash
# Speed-up of parallel simulation (docs/vxsim.md "Parallel simulation"): the SDK's regression sgemm
# on 16 cores × 8 warps × 8 threads, with 1, 2, 4, 8 and 16 host threads, in timing mode (sockets of
# 4 cores = 4 partitions, and socket_size=1 = 16 partitions) and in functional mode (16 partitions).
# Prints wall seconds, the speed-up over 1 thread, and checks that the output is the same each time.
#
#   bench/parallel_speedup.sh [BUILD_DIR] [N]     (default build/release, sgemm -n N, N = 128)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build/release}" && pwd)
n=${2:-128}
dir=$build/sdk/regression/sgemm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-34s %7s %9s %8s\n' case threads wall_s speedup
for mode in "timing 4-core sockets|1|-" "timing socket_size=1|1|socket_size=1" "functional|0|-"; do
  IFS='|' read -r label timing set <<<"$mode"
  base=
  for t in 1 2 4 8 16; do
    env=(VXSIM_CORES=16 VXSIM_WARPS=8 VXSIM_THREADS=8 VXSIM_TIMING="$timing" VXSIM_HOST_THREADS="$t")
    [ "$set" != - ] && env+=(VXSIM_SET="$set")
    start=$(date +%s.%N)
    (cd "$dir" && env "${env[@]}" ./sgemm -n"$n") >"$tmp/out$t.txt"
    wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b - a}')
    [ -z "$base" ] && base=$wall
    cmp -s "$tmp/out1.txt" "$tmp/out$t.txt" || echo "  output differs from 1 thread!"
    printf '%-34s %7d %9s %8s\n' "$label" "$t" "$wall" "$(awk -v a="$base" -v b="$wall" 'BEGIN{printf "%.2f", a / b}')"
  done
done
