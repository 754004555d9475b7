#!/usr/bin/env bash
# Parallel simulation gives the serial run's results (docs/vxsim.md "Parallel simulation"): every
# SDK regression program below runs at shapes of several partitions with VXSIM_HOST_THREADS=1 and
# =3, in timing mode (all class-1 and class-2 counters of every core through VORTEX_PROFILING, the
# signature file) and in functional mode; stdout (checks, console, PERF lines) and the signature
# file must be byte-identical, and every run must pass its own check.
#   parallel_identical.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
reg=$build/sdk/regression
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
programs=("vecadd -n67" "sgemm -n32" "sgemm2 -n32" "conv3 -n32" "diverge -n131" "printf -n10" "fence -n100" "gbar"
          "cta -x3 -y2 -z2 -a3 -b2 -c2" "mstress -n2" "dotproduct -n1000" "stencil3d -n8" "dogfood -n2")
# shape: cores warps threads mode profiling extra VXSIM_SET
shapes=("8 4 4 1 2 -" "12 8 8 1 1 -" "4 4 4 1 2 socket_size=1" "6 4 4 0 0 -")
fail=0
for prog in "${programs[@]}"; do
  name=${prog%% *}
  args=${prog#"$name"}
  for shape in "${shapes[@]}"; do
    read -r cores warps threads timing prof set <<<"$shape"
    for t in 1 3; do
      env=(VXSIM_CORES="$cores" VXSIM_WARPS="$warps" VXSIM_THREADS="$threads" VXSIM_TIMING="$timing"
           VORTEX_PROFILING="$prof" VXSIM_HOST_THREADS="$t")
      [ "$set" != - ] && env+=(VXSIM_SET="$set")
      [ "$timing" = 1 ] && env+=(VXSIM_SIGNATURE="$tmp/sig$t.json")
      (cd "$reg/$name" && env "${env[@]}" "./$name" $args) >"$tmp/out$t.txt" 2>&1 || {
        echo "FAIL: $name$args at ${cores}c${warps}w${threads}t timing=$timing threads=$t exits non-zero:"
        tail -5 "$tmp/out$t.txt"
        fail=1
      }
    done
    if ! cmp -s "$tmp/out1.txt" "$tmp/out3.txt"; then
      echo "FAIL: $name$args at ${cores}c${warps}w${threads}t timing=$timing: output differs with 3 host threads"
      diff "$tmp/out1.txt" "$tmp/out3.txt" | head -10
      fail=1
    fi
    if [ "$timing" = 1 ] && ! cmp -s "$tmp/sig1.json" "$tmp/sig3.json"; then
      echo "FAIL: $name$args at ${cores}c${warps}w${threads}t: signature differs with 3 host threads"
      fail=1
    fi
    cycles=$(grep -oE '^PERF: instrs=[0-9]+, cycles=[0-9]+' "$tmp/out1.txt" | tail -1)
    echo "ok: $name$args ${cores}c${warps}w${threads}t timing=$timing ${set/-/} $cycles"
  done
done
exit $fail
