#!/usr/bin/env bash
# The main job (README): installs the Debian packages, configures and builds the `release` preset
# (build tree build/release), then reconstructs a real H200 reference kernel as a Vortex benchmark
# on this CPU-only machine and prints where the benchmark is:
#   1. import the shipped ACT capture (torch trace + ncu raw CSV, data/references/h200/act) into a
#      reference bundle;
#   2. `vxsynth reconstruct` its 4th hot kernel (FP32 SIMT linear, M=100 N=512 K=512) with the vxsim
#      profile backend (vxsim counters vs the H200 signature) and the built-in agent at a small revision budget.
# The GPU (ncu, CUDA-first) form is in README "Reconstruct a kernel".
# Idempotent: a finished run is kept; an interrupted one is resumed (--resume).
# Each revision takes about 7–18 s on a 2-core machine (build ≈ 4 s, then the timing simulation).
# Environment: KERNEL (default k4), BUDGET (default 3), OUT (default out/main-job).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release

vxsynth=build/release/cli/vxsynth
src=data/references/h200/act
out=${OUT:-out/main-job}
kernel=${KERNEL:-k4}
budget=${BUDGET:-3}
mkdir -p "$out"

echo "== import the real H200 ACT capture ($src) into a reference bundle"
"$vxsynth" profile import --trace "$src/trace.json.gz" --ncu "$src/ncu_raw.csv" \
  --provenance "$src/provenance.json" --workload act-h200 -o "$out/act-h200.json"
"$vxsynth" hot "$out/act-h200.json"

# One directory per bundle content: a re-run with the same bundle resumes (or just re-locks) the
# run; a changed bundle (e.g. an improved importer) starts a fresh one.
bench="$out/act-h200-$kernel-$(sha256sum "$out/act-h200.json" | cut -c1-12)"
resume=()
if [ -s "$bench/record.jsonl" ]; then resume=(--resume); fi
echo "== reconstruct $kernel on vxsim (vxsim counters vs the H200 signature), built-in agent, budget $budget"
"$vxsynth" reconstruct "$out/act-h200.json" --kernel "$kernel" --profile vxsim --budget "$budget" \
  -o "$bench" "${resume[@]}"
echo
echo "main-job: benchmark in $bench: vortex/ (make VXSDK=$PWD/build/release/sdk, or VORTEX_HOME=…),"
echo "          cuda/candidate.cu, summary.md, record.jsonl, vortex_signature.json"
