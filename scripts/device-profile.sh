#!/usr/bin/env bash
# Re-profiles the workloads on a lent GPU machine so that each reference bundle holds its top
# operator kernels with ncu signatures (docs/suite.md "Re-profiling for a suite"): per workload
# `python -m vxsynth_torch.profile WORKLOAD --config full --top-operators N`, which keeps the
# ranks down to the N-th operator kernel (helpers above it kept for coverage), profiles them with
# ncu and imports the bundle with the carried vxsynth (scripts/device-env.sh unpacks it where
# vxsynth_torch finds it). The layout matches data/references/h200/<workload>/ (trace.json.gz,
# ncu_raw.csv, hot_kernels.json, provenance.json, bundle.json, hot.txt, ncu.log, step.log).
#
# Usage (repository root, on the GPU machine):  scripts/device-profile.sh OUT_DIR [WORKLOAD...]
# Environment: PYTHON (the interpreter with CUDA torch; default /opt/torch/.venv/bin/python3, else
#   python3), TOP_OPERATORS (5), NCU_TIMEOUT (s per ncu run, 240), TARBALL (default
#   $OUT/references.tgz when $OUT is set), VXDEV_TARBALL (.devcarry/vxdev.tar.xz).
# Copy the result over data/references/h200/ after reading the step logs.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
(($# >= 1)) || { echo "usage: scripts/device-profile.sh OUT_DIR [WORKLOAD...]" >&2; exit 2; }
out=$1
shift
workloads=("$@")
((${#workloads[@]})) || workloads=(act diffusion_policy pi0)
py=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$py" ] || py=$(command -v python3)
"$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' ||
  { echo "device-profile: $py has no CUDA torch" >&2; exit 2; }
command -v ncu >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$out"
out=$(cd "$out" && pwd)
tarball=${TARBALL:-${OUT:+$OUT/references.tgz}}
source "$repo/scripts/device-env.sh"
export VXSYNTH_BIN=$dev/bin/vxsynth PYTHONPATH=$repo/python${PYTHONPATH:+:$PYTHONPATH}

status=0
for w in "${workloads[@]}"; do
  d=$out/$w
  mkdir -p "$d"
  cmd=("$py" -m vxsynth_torch.profile "$w" --out "$d" --config full --top-operators "${TOP_OPERATORS:-5}"
       --ncu-timeout "${NCU_TIMEOUT:-240}")
  start=$(date +%s)
  { echo "\$ ${cmd[*]}"; "${cmd[@]}" 2>&1; echo "exit $? after $(($(date +%s) - start)) s"; } > "$d/step.log" || true
  if [ -f "$d/bundle.json" ]; then
    "$VXSYNTH_BIN" hot "$d/bundle.json" > "$d/hot.txt" 2>&1 || true
    echo "$w: $(grep -c ' main ' "$d/hot.txt" || true) main kernels, $(grep -c ' helper ' "$d/hot.txt" || true) helpers"
  else
    echo "$w: no bundle (see $d/step.log)"; status=1
  fi
  tail -3 "$d/step.log"
done
if [ -n "$tarball" ]; then
  tar -C "$out" --exclude='*.ncu-rep' -czf "$tarball" "${workloads[@]}"
  echo "archive: $tarball ($(du -h "$tarball" | cut -f1))"
fi
exit "$status"
