#!/usr/bin/env bash
# Speed-up of parallel simulation (docs/vxsim.md "Parallel simulation"): the SDK's regression sgemm
# on 16 cores × 8 warps × 8 threads, with 1, 2, 4, 8 and 16 host threads, in timing mode (sockets of
# 4 cores = 4 partitions, and socket_size=1 = 16 partitions) and in functional mode (16 partitions).
# Prints the machine and build it ran on, then per case the best wall seconds of REPS runs (whole
# host program: setup, simulation, check), the user+system CPU seconds of that run, the speed-up
# over 1 thread, and checks that the output is the same for every thread count.
#
#   bench/parallel_speedup.sh [BUILD_DIR] [N]     (default build/release, sgemm -n N, N = 128)
#   REPS=5 bench/parallel_speedup.sh ...          (default 3)
#
# BUILD_DIR is taken from the caller's directory; only BUILD_DIR/sdk/regression/sgemm/ (the host
# program `sgemm` and its `kernel.vxbin`) is used, so a copy of that one folder is enough.
set -euo pipefail
build=$(cd "${1:-build/release}" && pwd)
n=${2:-128}
reps=${REPS:-3}
dir=$build/sdk/regression/sgemm
[ -x "$dir/sgemm" ] && [ -f "$dir/kernel.vxbin" ] || { echo "no sgemm and kernel.vxbin in $dir" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "date:  $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu:   $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) online CPUs"
echo "load:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo "build: $build"
echo "tree:  $(git -C "$(dirname "$0")" describe --always --dirty 2>/dev/null || echo 'no git') (this script's; a copied build may come from another)"
echo "run:   sgemm -n$n at 16c x 8w x 8t, best wall of $reps"
printf '%-26s %7s %8s %8s %8s\n' case threads wall_s cpu_s speedup

# run_once ENV... : runs sgemm once with ENV, output in $tmp/out.txt, "wall cpu" in $tmp/time.txt.
run_once() {
  local TIMEFORMAT='%R %U %S'
  { time (cd "$dir" && env "$@" ./sgemm -n"$n" >"$tmp/out.txt" 2>&1); } 2>"$tmp/time.txt"
}

for mode in "timing 4-core sockets|1|-" "timing socket_size=1|1|socket_size=1" "functional|0|-"; do
  IFS='|' read -r label timing set <<<"$mode"
  base=
  for t in 1 2 4 8 16; do
    env=(VXSIM_CORES=16 VXSIM_WARPS=8 VXSIM_THREADS=8 VXSIM_TIMING="$timing" VXSIM_HOST_THREADS="$t")
    [ "$set" != - ] && env+=(VXSIM_SET="$set")
    best=
    for ((r = 0; r < reps; ++r)); do
      run_once "${env[@]}" || { echo "  sgemm failed:"; tail -5 "$tmp/out.txt"; exit 1; }
      read -r wall user sys <"$tmp/time.txt"
      if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN{exit !(a < b)}'; then
        best=$wall
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')
      fi
      [ "$t" = 1 ] && [ "$r" = 0 ] && cp "$tmp/out.txt" "$tmp/out1.txt"
      cmp -s "$tmp/out1.txt" "$tmp/out.txt" || echo "  output differs from 1 thread!"
    done
    [ -z "$base" ] && base=$best
    printf '%-26s %7d %8s %8s %8s\n' "$label" "$t" "$best" "$cpu" \
      "$(awk -v a="$base" -v b="$best" 'BEGIN{printf "%.2f", a / b}')"
  done
done
