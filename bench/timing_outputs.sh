#!/usr/bin/env bash
# Writes everything a timing-mode run reports, for comparing two builds of vxsim (docs/vxsim.md
# "Speed": an optimisation of the timing model must not change any result). Every SDK regression
# program below runs at every shape below in timing mode with all class-1 and class-2 counters of
# every core (VORTEX_PROFILING=1 and 2) and the signature file; stdout (checks, console, PERF lines)
# goes to OUT_DIR/<program>.<shape>.p<profiling>.txt, the signature to ….json.
#   timing_outputs.sh BUILD_DIR OUT_DIR
#   diff -r OUT_BEFORE OUT_AFTER   # empty: bit-identical
set -euo pipefail
build=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
reg=$build/sdk/regression
programs=("vecadd -n67" "sgemm -n64" "sgemm2 -n64" "conv3 -n32" "diverge -n131" "printf -n10" "basic -n256"
          "fence -n100" "gbar")
# shape: cores warps threads VXSIM_SET ('-' = none)
shapes=("1 4 4 -" "1 16 8 -" "1 32 8 -" "4 8 8 -" "2 8 4 l2.enabled=true" "1 8 8 issue_width=2"
        "1 8 8 lmem.banks=3")
for prog in "${programs[@]}"; do
  name=${prog%% *}
  args=${prog#"$name"}
  for shape in "${shapes[@]}"; do
    read -r cores warps threads set <<<"$shape"
    for prof in 1 2; do
      tag="$name.${cores}c${warps}w${threads}t${set/-/}.p$prof"
      env=(VXSIM_CORES="$cores" VXSIM_WARPS="$warps" VXSIM_THREADS="$threads" VXSIM_TIMING=1
           VORTEX_PROFILING="$prof" VXSIM_HOST_THREADS=1 VXSIM_SIGNATURE="$out/$tag.json")
      [ "$set" != - ] && env+=(VXSIM_SET="$set")
      (cd "$reg/$name" && env "${env[@]}" "./$name" $args) >"$out/$tag.txt" 2>&1 || echo "exit $?" >>"$out/$tag.txt"
    done
  done
done
ls "$out" | wc -l
