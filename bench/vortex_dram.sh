#!/usr/bin/env bash
# DRAM traffic of a suite's Vortex benchmarks against the operator's own bytes (docs/codegen.md
# "Lean Vortex kernels"): runs `vxsynth suite run` on two copies of SUITE, on the default machine
# and with `--set l2.enabled=true` (the machine of sim/timing/configs/l2.toml, SimX --l2cache: a
# 1 MiB L2, whose other keys are the defaults), and prints per benchmark the cycles, DRAM bytes
# over every launch, the operator's inputs + output in device memory and their ratio.
#
#   bench/vortex_dram.sh [SUITE [BUILD_DIR]] [suite run options, e.g. --benchmark NAME ...]
#     SUITE      default data/suite/vx-robotics-h200;  BUILD_DIR default build/release (relative
#                paths are taken from the current directory; the defaults from the repository)
#   WORK: a new directory for the two copies and their run.csv (default: a fresh mktemp -d); an
#   existing WORK is reused only when an earlier run of this script made it. JOBS (1) = suite run -j.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
positional=()
while (($# > 0)) && [[ $1 != --* ]] && ((${#positional[@]} < 2)); do
  positional+=("$1")
  shift
done
suite=${positional[0]:-$repo/data/suite/vx-robotics-h200}
build=${positional[1]:-$repo/build/release}
[ -d "$suite" ] || { echo "vortex_dram.sh: no suite directory $suite" >&2; exit 2; }
vx=$build/cli/vxsynth
[ -x "$vx" ] || { echo "vortex_dram.sh: no vxsynth executable at $vx (BUILD_DIR is a vxsynth build, e.g. build/release)" >&2; exit 2; }
marker=.vortex-dram-work
if [ -z "${WORK:-}" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/vortex-dram.XXXXXX")
elif [ ! -e "$WORK" ]; then
  work=$WORK
elif [ -f "$WORK/$marker" ]; then
  work=$WORK
  rm -rf "${work:?}/default" "${work:?}/l2"
else
  echo "vortex_dram.sh: WORK=$WORK exists and was not made by this script; not touching it" >&2
  exit 2
fi
mkdir -p "$work"
touch "$work/$marker"
for machine in default l2; do
  "$vx" suite export "$suite" -o "$work/$machine" > /dev/null
  set_l2=()
  [ "$machine" = l2 ] && set_l2=(--set l2.enabled=true)
  "$vx" suite run "$work/$machine" -j "${JOBS:-1}" --sdk "$build/sdk" "${set_l2[@]}" "$@" > "$work/$machine.log" || true
  [ -f "$work/$machine/run.csv" ] || { echo "vortex_dram.sh: suite run wrote no run.csv:" >&2; cat "$work/$machine.log" >&2; exit 2; }
done
# Columns of run.csv by name, so that a column added later does not shift these.
pick() { awk -F, -v want="$1" 'NR==1{n=split(want,w,","); for(i=1;i<=NF;i++)c[$i]=i; next}
                               {s=$c[w[1]]; for(i=2;i<=n;i++) s=s","$c[w[i]]; print s}' "$2" | sort; }
join -t, <(pick benchmark,status,cycles,dram_bytes,operand_bytes,dram_per_operand_byte "$work/default/run.csv") \
         <(pick benchmark,cycles,dram_bytes,dram_per_operand_byte "$work/l2/run.csv") |
  awk -F, 'BEGIN{printf "%-22s %-7s %14s %16s %12s %9s | %14s %16s %9s\n", "benchmark", "status", "cycles", "DRAM bytes", "operand B", "ratio", "cycles (L2)", "DRAM bytes (L2)", "ratio"}
           {printf "%-22s %-7s %14s %16s %12s %9s | %14s %16s %9s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9}'
echo "(runs in $work)"
