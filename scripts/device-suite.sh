#!/usr/bin/env bash
# Builds the VX-Robotics suite on a lent GPU machine (docs/suite.md "On the H200"): unpacks the
# pack of scripts/device-pack.sh (scripts/device-env.sh), then `vxsynth suite build` over the three
# workloads' bundles, CUDA-first (--profile ncu), the largest kernels first, as many at once as the
# machine has cores (-j: nvcc, riscv gcc, vxsim) with ncu serialised through the suite's GPU lock,
# under a wall-clock guard. When the guard fires the build is stopped (its jobs die with it), what
# finished is collected, and the archive is written all the same. Calling the script again with the
# same OUT_DIR continues the build (--resume): finished kernels are kept, interrupted ones resume
# from their last recorded revision. The archive is what a repository keeps (`vxsynth suite
# export`: records, summaries, reference profiles, validation manifests, per-revision ncu CSVs and
# logs; no tensors, generated sources the records pin and this vxsynth renders again, runtime
# copies, binaries or ncu reports): a few MB, to be committed as data/suite/<SUITE_NAME>/ (vx-robotics-h200/ for the H200 bundles).
#
# Usage (repository root, on the GPU machine):
#   scripts/device-suite.sh OUT_DIR [extra `vxsynth suite build` arguments, e.g. --kernel act:k4]
# Environment: BUDGET (12), JOBS (nproc), ORDER (cuda-first | vortex-first), PROFILE_IN (auto |
#   workload | standalone: reconstruct --profile-in), PROFILE (ncu; vxsim
#   tests the script on a machine without a GPU), REFERENCES (the directory of the workloads'
#   bundles, data/references/h200; scripts/device-profile.sh writes one for another GPU), WORKLOADS
#   ("act diffusion_policy pi0": REFERENCES/<w>/bundle.json), SUITE_NAME (vx-robotics-<the
#   REFERENCES directory's name>: vx-robotics-h200), WALL (s before the guard
#   stops the build, 540: the device tool allows 600 per command), RUN_TIMEOUT (s per candidate run,
#   300), TARBALL (default $OUT/suite.tgz when $OUT is set), VXDEV_TARBALL (.devcarry/vxdev.tar.xz).
# Every reconstruct gets --python-dir <this tree>/python, so that it profiles in the workload
# (vxsynth_torch's workloads on the GPU machine, not the packing machine's path).
# Writes OUT_DIR/SUITE_NAME (the suite), OUT_DIR/provenance.txt, OUT_DIR/build.log (appended per
# call), OUT_DIR/check.log, OUT_DIR/export/ (what the archive holds).
#
# The H200 suite in two back-to-back device calls (device tool, carry [".devcarry"]; OUT_DIR under
# build/, which git ignores, so the first call's suite is still there when the second starts while
# the machine is warm; .devcarry is replaced by the carried copy each call and unpacked again):
#   first call:   BUDGET=12 WALL=480 scripts/device-suite.sh build/h200-suite
#   resume call:  BUDGET=12 WALL=480 scripts/device-suite.sh build/h200-suite
# (the same command: the second finds build/h200-suite/vx-robotics-h200/plan.json and resumes). Each
# returns $OUT/suite.tgz; unpack the last one's vx-robotics-h200/ as data/suite/vx-robotics-h200/.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
(($# >= 1)) || { echo "usage: scripts/device-suite.sh OUT_DIR [suite build arguments...]" >&2; exit 2; }
out=$1
shift
profile=${PROFILE:-ncu}
order=${ORDER:-cuda-first}
profile_in=${PROFILE_IN:-auto}
jobs=${JOBS:-$(nproc)}
references=${REFERENCES:-$repo/data/references/h200}
[ -d "$references" ] || { echo "device-suite: REFERENCES $references is no directory" >&2; exit 2; }
references=$(cd "$references" && pwd)
suite_name=${SUITE_NAME:-vx-robotics-$(basename "$references")}
bundles=()
for w in ${WORKLOADS:-act diffusion_policy pi0}; do
  b=$references/$w/bundle.json
  [ -f "$b" ] || { echo "device-suite: no bundle $b" >&2; exit 2; }
  bundles+=("$b")
done
if [ "$profile" = ncu ]; then command -v ncu >/dev/null || export PATH=/usr/local/cuda/bin:$PATH; fi
if [ "$profile" = ncu ] && ! command -v ncu >/dev/null; then echo "device-suite: ncu not found" >&2; exit 2; fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
tarball=${TARBALL:-${OUT:+$OUT/suite.tgz}}
source "$repo/scripts/device-env.sh"
vx=$dev/bin/vxsynth

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname), $(nproc) CPUs"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "gpu: none"
  (nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version 2>/dev/null || echo "nvcc: none") | tail -2
  (ncu --version 2>/dev/null || echo "ncu: none") | tail -1
  echo "host c++: $("$host_cxx" --version | head -1)"
  echo "checkout .git HEAD (may lag the copied files): $(git -C "$repo" rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
  cat "$dev/PACKED"
  echo "command: scripts/device-suite.sh OUT $* (REFERENCES=$references BUDGET=${BUDGET:-12} JOBS=$jobs ORDER=$order PROFILE_IN=$profile_in PROFILE=$profile WALL=${WALL:-540})"
} >> "$out/provenance.txt"

# The archive: what a repository keeps of the suite (vxsynth suite export, docs/suite.md "A suite to
# commit"), with this script's provenance and logs in .suite/device/; also written when the guard stopped the build.
archive() {
  [ -n "$tarball" ] || return 0
  rm -rf "$out/export"
  mkdir -p "$out/export"
  "$vx" suite export "$out/$suite_name" -o "$out/export/$suite_name" | tee -a "$out/build.log" || return 0
  # Beside the suite's job records in its state directory, which the manifest and `suite check` leave out.
  mkdir -p "$out/export/$suite_name/.suite/device"
  cp "$out/provenance.txt" "$out/build.log" "$out/check.log" "$out/export/$suite_name/.suite/device/"
  tar -C "$out/export" -czf "$tarball" "$suite_name"
  echo "archive: $tarball ($(du -h "$tarball" | cut -f1))"
}

resume=()
[ -f "$out/$suite_name/plan.json" ] && resume=(--resume)
order_args=()
[ "$profile" = ncu ] && order_args=(--order "$order" --profile-in "$profile_in")
echo "=== $(date -u +%H:%M:%SZ) suite build ${resume[*]:-(new)}" >> "$out/build.log"
start=$(date +%s)
set +e
timeout -s TERM -k 20 "${WALL:-540}" "$vx" suite build "${bundles[@]}" -o "$out/$suite_name" --profile "$profile" \
  "${order_args[@]}" --budget "${BUDGET:-12}" -j "$jobs" --sdk "$dev/sdk" --python-dir "$repo/python" \
  --run-timeout "${RUN_TIMEOUT:-300}" "${resume[@]}" "$@" \
  >> "$out/build.log" 2>&1
status=$?
set -e
echo "suite build: exit $status after $(($(date +%s) - start)) s wall (log: $out/build.log)" | tee -a "$out/build.log"
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "device-suite: the wall-clock guard (${WALL:-540} s) stopped the build; collecting what finished" | tee -a "$out/build.log"
  "$vx" suite collect "$out/$suite_name" >> "$out/build.log" 2>&1 || true
fi
"$vx" suite check "$out/$suite_name" > "$out/check.log" 2>&1 || true
tail -1 "$out/check.log"
[ -f "$out/$suite_name/SUITE.md" ] && sed -n '1,60p' "$out/$suite_name/SUITE.md"
archive
exit "$status"
