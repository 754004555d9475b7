#!/usr/bin/env bash
# vxsim's timing model against real SimX: runs every program of bench/calibration/simx_counts.tsv
# at its shape on the vortex.h runtime (timing mode) and prints thread instructions and cycles of
# both simulators, their ratios, and the geometric mean of the cycle ratio per shape.
#
#   bench/timing_calibration.sh [BUILD_DIR]          (default build/release; needs the regression
#                                                     hosts and sdk/ built: cmake --build --preset release)
#   VXSIM_SET="dram.burst_cycles=2" bench/timing_calibration.sh    tries other parameters
#   ONLY=regression bench/timing_calibration.sh      skips the generated benchmarks (minutes each)
#   COUNTS=file.tsv bench/timing_calibration.sh      another table of the same format
#   FORMAT=md bench/timing_calibration.sh            markdown rows (the docs/timing.md calibration table)
#   CHECK=0.2 bench/timing_calibration.sh            exit 1 if a program whose thread instructions agree
#                                                    with SimX's within ±15 % has cycles outside 1 ± 0.2
#                                                    of SimX's (the CTest timing.calibration.regression)
#
# Generated benchmarks are built once into $WORK (default /tmp/vxsim-calibration). Facts and the
# provenance of the SimX counts: docs/timing.md "Calibration".
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$(cd "${1:-build/release}" && pwd)
work=${WORK:-/tmp/vxsim-calibration}
only=${ONLY:-}
counts=${COUNTS:-bench/calibration/simx_counts.tsv}
format=${FORMAT:-text}
check=${CHECK:-}
failed=0
mkdir -p "$work"

# perf_line KIND LAUNCH: the 'instrs cycles' of the run's PERF output on stdin.
perf_line() {
  if [ "$1" = regression ] || [ "$2" = - ]; then
    grep -E '^PERF: (all [0-9]+ launches|instrs)=?' | tail -1 | sed -E 's/.*instrs=([0-9]+), cycles=([0-9]+).*/\1 \2/'
  else
    grep -E "^PERF: launch $2 of " | sed -E 's/.*instrs=([0-9]+), cycles=([0-9]+).*/\1 \2/'
  fi
}

if [ "$format" = md ]; then
  echo '| program | shape | vxsim thread instrs | SimX thread instrs | vxsim cycles | SimX cycles | cycle ratio |'
  echo '|---|---|---|---|---|---|---|'
else
  printf '%-20s %-7s %12s %12s %6s %12s %12s %6s\n' program shape vx_instrs simx_instrs ratio vx_cycles simx_cycles ratio
fi
declare -A logsum count
while IFS=$'\t' read -r name kind src args cores warps threads launch s_instrs s_cycles; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  [[ -n "$only" && "$kind" != "$only" ]] && continue
  shape="${cores}c${warps}w${threads}t"
  env=(VXSIM_CORES="$cores" VXSIM_WARPS="$warps" VXSIM_THREADS="$threads")
  if [ "$kind" = regression ]; then
    dir="$build/sdk/regression/$src"
    out=$(cd "$dir" && env "${env[@]}" "./$src" $args)
  else
    if [ ! -f "$src/Makefile" ]; then
      echo "$name: skipped, $src/Makefile not found" >&2
      continue
    fi
    dir="$work/$name"
    mkdir -p "$dir"
    rm -f "$dir/vxs_candidate"  # relink: the Makefile does not track the runtime library
    make -s -C "$dir" -f "$root/$src/Makefile" VXSDK="$build/sdk" all >/dev/null
    out=$(cd "$dir" && env "${env[@]}" ./vxs_candidate)
  fi
  read -r v_instrs v_cycles < <(printf '%s\n' "$out" | perf_line "$kind" "$launch")
  ri=$(awk -v a="$v_instrs" -v b="$s_instrs" 'BEGIN{printf "%.3f", a/b}')
  rc=$(awk -v a="$v_cycles" -v b="$s_cycles" 'BEGIN{printf "%.3f", a/b}')
  if [ "$format" = md ]; then
    printf '| %s | %s | %d | %d | %d | %d | %s |\n' "$name" "$shape" "$v_instrs" "$s_instrs" "$v_cycles" "$s_cycles" "$rc"
  else
    printf '%-20s %-7s %12d %12d %6s %12d %12d %6s\n' "$name" "$shape" "$v_instrs" "$s_instrs" "$ri" "$v_cycles" \
      "$s_cycles" "$rc"
  fi
  if [ -n "$check" ] && ! awk -v i="$ri" -v c="$rc" -v t="$check" \
      'BEGIN{exit !(i < 0.85 || i > 1.15 || (c >= 1 - t && c <= 1 + t))}'; then
    echo "FAIL: $name at $shape: vxsim/SimX cycles $rc outside 1 ± $check (instructions agree: $ri)" >&2
    failed=1
  fi
  logsum[$shape]=$(awk -v s="${logsum[$shape]:-0}" -v r="$rc" 'BEGIN{print s + log(r)}')
  count[$shape]=$(( ${count[$shape]:-0} + 1 ))
done < "$counts"
for shape in "${!count[@]}"; do
  awk -v s="${logsum[$shape]}" -v n="${count[$shape]}" -v sh="$shape" \
    'BEGIN{printf "geometric mean of vxsim/SimX cycles at %s: %.3f (%d programs)\n", sh, exp(s/n), n}'
done
exit "$failed"
