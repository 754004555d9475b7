#!/usr/bin/env bash
# In-workload vs standalone CUDA-first reconstruction on a lent GPU machine (docs/reconstruct.md
# "In the workload", evidence in data/evidence/h200/swap-*/): for each WORKLOAD:KERNEL:BUDGET the
# same reconstruction twice, once with the candidate profiled inside the workload through the
# operator swap (--profile-in workload) and once standalone (--profile-in standalone), through
# scripts/device-reconstruct.sh (one unpacked bundle, one serialised ncu). Same seed, same
# designs: the seed revision of both runs is the same kernel and design point, so their D and
# per-metric distances show what the workload's context changes.
#
# Usage (repository root, on the GPU machine, with .devcarry/vxdev.tar.xz from scripts/device-pack.sh):
#   scripts/device-swap.sh OUT_DIR WORKLOAD:KERNEL:BUDGET...
# Environment: as device-reconstruct.sh (TARBALL, RUN_TIMEOUT, WALL_LIMIT, SEED).
# Device tool call used for the evidence (carry .devcarry):
#   WALL_LIMIT=150 RUN_TIMEOUT=120 TARBALL=$OUT/swap-runs.tgz scripts/device-swap.sh /tmp/swap act:k4:1 act:k5:0
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
(($# >= 2)) || { echo "usage: scripts/device-swap.sh OUT_DIR WORKLOAD:KERNEL:BUDGET..." >&2; exit 2; }
out=$1
shift
specs=()
for spec in "$@"; do specs+=("$spec:workload" "$spec:standalone"); done
exec "$repo/scripts/device-reconstruct.sh" "$out" "${specs[@]}"
