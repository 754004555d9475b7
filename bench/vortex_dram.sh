#!/usr/bin/env bash
# DRAM traffic of a suite's Vortex benchmarks against the operator's own bytes (docs/codegen.md
# "Lean Vortex kernels"): runs `vxsynth suite run` on a copy of SUITE twice, on the default machine
# and on configs/l2.toml's (SimX --l2cache: 1 MiB L2), and prints per benchmark the cycles, DRAM
# bytes over every launch, the operator's inputs + output in device memory and their ratio.
#
#   bench/vortex_dram.sh [SUITE] [BUILD_DIR] [--benchmark NAME ...]
#     SUITE      default data/suite/vx-robotics-h200;  BUILD_DIR default build/release
#   WORK (default /tmp/vxsim-dram) holds the two copies and their run.csv; JOBS (1) = suite run -j.
set -euo pipefail
cd "$(dirname "$0")/.."
suite=${1:-data/suite/vx-robotics-h200}
build=${2:-build/release}
shift $(($# < 2 ? $# : 2))
work=${WORK:-/tmp/vxsim-dram}
vx=$build/cli/vxsynth
[ -x "$vx" ] || { echo "vortex_dram.sh: no $vx (cmake --build --preset release)" >&2; exit 2; }
rm -rf "$work"
mkdir -p "$work"
for machine in default l2; do
  "$vx" suite export "$suite" -o "$work/$machine" > /dev/null
  set_l2=()
  [ "$machine" = l2 ] && set_l2=(--set l2.enabled=true)
  "$vx" suite run "$work/$machine" -j "${JOBS:-1}" --sdk "$build/sdk" "${set_l2[@]}" "$@" > "$work/$machine.log" || true
done
# Columns of run.csv by name, so that a column added later does not shift these.
join -t, <(awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; next}
            {print $c["benchmark"]","$c["status"]","$c["cycles"]","$c["dram_bytes"]","$c["operand_bytes"]","$c["dram_per_operand_byte"]}' "$work/default/run.csv" | sort) \
         <(awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i; next}
            {print $c["benchmark"]","$c["cycles"]","$c["dram_bytes"]","$c["dram_per_operand_byte"]}' "$work/l2/run.csv" | sort) |
  awk -F, 'BEGIN{printf "%-22s %-7s %14s %16s %12s %9s | %14s %16s %9s\n", "benchmark", "status", "cycles", "DRAM bytes", "operand B", "ratio", "cycles (L2)", "DRAM bytes (L2)", "ratio"}
           {printf "%-22s %-7s %14s %16s %12s %9s | %14s %16s %9s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9}'
