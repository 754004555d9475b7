#!/usr/bin/env bash
# CUDA-first reconstruction on a lent GPU machine (docs/reconstruct.md "GPU evidence"): unpacks the
# bundle made by scripts/device-pack.sh, points its sdk.mk at the unpacked toolchain, and runs
# `vxsynth reconstruct --profile ncu` for several reference kernels at once. Their CPU work
# (nvcc, riscv gcc, vxsim) runs in parallel; their GPU runs are serialised through one lock
# file (reconstruct --gpu-lock) so that no two profiling sessions share the GPU.
#
# Usage (repository root, on the GPU machine):
#   scripts/device-reconstruct.sh OUT_DIR SPEC...
#   SPEC = WORKLOAD:KERNEL:BUDGET[:PROFILE_IN], e.g. act:k4:6 (bundle data/references/h200/WORKLOAD/bundle.json);
#   PROFILE_IN (workload|standalone|auto, default auto) is passed as --profile-in and, when given,
#   names the run <workload>-<kernel>-<PROFILE_IN>.
# Environment: VXDEV_TARBALL (default .devcarry/vxdev.tar.xz), PROFILE (default ncu; vxsim
#   smoke-tests the unpacked toolchain on a machine without a GPU), RUN_TIMEOUT (s per candidate
#   run, default 300), SEED (default 1), ORDER (with ncu: cuda-first, the default, or vortex-first;
#   docs/reconstruct.md "Orders"), TARBALL (path of a .tgz of OUT_DIR, see below), WALL_LIMIT
#   (seconds per reconstruct process, default none: a run stopped by it keeps its record lines).
# Writes OUT_DIR/<workload>-<kernel>/ (the benchmark directory of each run),
# OUT_DIR/<workload>-<kernel>.log, OUT_DIR/provenance.txt, OUT_DIR/summary.tsv, and with TARBALL
# an archive of OUT_DIR without tensors, ncu reports and binaries (also when stopped by TERM).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
usage() {
  echo "usage: scripts/device-reconstruct.sh OUT_DIR WORKLOAD:KERNEL:BUDGET... (e.g. act:k4:6)" >&2
  echo "device-reconstruct: $1" >&2
  exit 2
}
(($# >= 2)) || usage "need an output directory and at least one WORKLOAD:KERNEL:BUDGET"
out=$1
shift
tarball=${VXDEV_TARBALL:-$repo/.devcarry/vxdev.tar.xz}
profile=${PROFILE:-ncu}
# Every spec is checked before anything is unpacked or started.
workloads=$(cd "$repo/data/references/h200" && ls -d */ 2>/dev/null | tr -d / | tr '\n' ' ')
for spec in "$@"; do
  [[ $spec =~ ^([A-Za-z0-9_]+):(k[0-9]+|[0-9]+):([0-9]+)(:(workload|standalone|auto))?$ ]] ||
    usage "'$spec' is not WORKLOAD:KERNEL:BUDGET[:workload|standalone|auto] (kernel id like k4 or a rank, budget an integer)"
  [ -f "$repo/data/references/h200/${BASH_REMATCH[1]}/bundle.json" ] ||
    usage "'$spec': no workload '${BASH_REMATCH[1]}' (data/references/h200 has: $workloads)"
done
[ -f "$tarball" ] || usage "$tarball does not exist: run scripts/device-pack.sh on a machine with the build (or set VXDEV_TARBALL)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

tmp=$(mktemp -d /tmp/vxdev.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xJf "$tarball"
dev=$tmp/vxdev
cat "$dev/PACKED"

# Carried shared libraries, only where the system has no library of that soname.
mkdir -p "$dev/lib-missing"
for so in "$dev"/lib/*; do
  name=$(basename "$so")
  ldconfig -p | grep "^[[:space:]]*$name " >/dev/null || ln -s "$so" "$dev/lib-missing/$name"
done
export LD_LIBRARY_PATH="$dev/lib-missing${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "carried libraries in use: $(ls "$dev/lib-missing" | tr '\n' ' ')"

host_cxx=$(command -v c++ || command -v g++) || { echo "device-reconstruct: no host C++ compiler" >&2; exit 1; }
sed -e "s#@VXDEV@#$dev#g" -e "s#@REPO@#$repo#g" -e "s#@HOST_CXX@#$host_cxx#g" "$dev/sdk/sdk.mk.in" > "$dev/sdk/sdk.mk"

# The relocated riscv toolchain must build and link a kernel before anything else runs.
printf 'int main() { return 0; }\n' > "$tmp/probe.cpp"
make -s -C "$tmp" -f - probe <<EOF
include $dev/sdk/sdk.mk
probe:
	\$(VX_CXX) \$(VX_CXXFLAGS) probe.cpp \$(VX_LDFLAGS) -o probe.elf
EOF
echo "riscv toolchain: ok ($("$dev/riscv/bin/riscv64-unknown-elf-g++" --version | head -1))"

gpu_lock_args=()
[ "$profile" = ncu ] && gpu_lock_args=(--gpu-lock "$tmp/gpu.lock")

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "gpu: none"
  (/usr/local/cuda/bin/nvcc --version 2>/dev/null || echo "nvcc: none") | tail -2
  (ncu --version 2>/dev/null || echo "ncu: none") | tail -1
  python3 -c 'import torch; print("torch", torch.__version__)' 2>/dev/null || echo "torch: none"
  echo "host c++: $("$host_cxx" --version | head -1)"
  # The device tool copies the working tree; its .git may lag the files, so the packed commit
  # (PACKED, below) is the one that identifies the code that ran.
  echo "checkout .git HEAD (may lag the copied files): $(git -C "$repo" rev-parse HEAD 2>/dev/null || echo 'not a git checkout')"
  cat "$dev/PACKED"
  echo "command: scripts/device-reconstruct.sh OUT $*"
} > "$out/provenance.txt"

# One archive of everything a reader needs, without what is large or rebuilt from the sources:
# sampled tensors (*.bin: up to 84 MB per revision for a conv1d weight), ncu reports (the CSV
# beside each is kept), binaries and disassembly. Also written when the script is stopped
# (timeout(1) sends TERM), so that records and finished revisions survive a cut.
archive() {
  [ -n "${TARBALL:-}" ] || return 0
  tar -C "$(dirname "$out")" --exclude='*.bin' --exclude='*.ncu-rep' --exclude='kernel.dump' \
    --exclude='*.elf' --exclude='*.vxbin' --exclude='*.o' --exclude='vxs_standalone' --exclude='vxs_candidate' \
    --exclude='main' --exclude='*.so' -czf "$TARBALL" "$(basename "$out")"
  echo "archive: $TARBALL ($(du -h "$TARBALL" | cut -f1))"
}
pids=()
stopped() {
  echo "device-reconstruct: stopped; archiving what exists" >&2
  kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  archive
  exit 124
}
trap stopped TERM INT

names=()
for spec in "$@"; do
  IFS=: read -r workload kernel budget profile_in <<<"$spec"
  bundle=$repo/data/references/h200/$workload/bundle.json
  name=$workload-$kernel${profile_in:+-$profile_in}
  limit=()
  [ -n "${WALL_LIMIT:-}" ] && limit=(timeout -s TERM "$WALL_LIMIT")
  (
    start=$(date +%s)
    order_args=()
    [ "$profile" = ncu ] && order_args=(--order "${ORDER:-cuda-first}")
    "${limit[@]}" "$dev/bin/vxsynth" reconstruct "$bundle" --kernel "$kernel" --profile "$profile" "${order_args[@]}" "${gpu_lock_args[@]}" \
      --sdk "$dev/sdk" --budget "${budget:-6}" --seed "${SEED:-1}" --run-timeout "${RUN_TIMEOUT:-300}" \
      --profile-in "${profile_in:-auto}" --python-dir "$repo/python" -o "$out/$name"
    echo "wall: $(($(date +%s) - start)) s"
  ) > "$out/$name.log" 2>&1 &
  pids+=($!)
  names+=("$name")
done
status=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then echo "${names[$i]}: done"; else echo "${names[$i]}: FAILED (see $out/${names[$i]}.log)"; status=1; fi
done

printf 'run\tseed_D\tfinal_D\ttried\tretained\twall_s\tstop\n' > "$out/summary.tsv"
for name in "${names[@]}"; do
  s=$out/$name/summary.json
  if [ -f "$s" ]; then
    python3 - "$s" "$name" >> "$out/summary.tsv" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]}\t{s['seed_D']:.4f}\t{s['final_D']:.4f}\t{s['revisions_tried']}\t{s['revisions_retained']}\t"
      f"{s['wall_time_s']:.0f}\t{s['stop_reason']}")
EOF
  else
    printf '%s\tNA\tNA\tNA\tNA\tNA\tno summary\n' "$name" >> "$out/summary.tsv"
  fi
done
column -t -s $'\t' "$out/summary.tsv" 2>/dev/null || cat "$out/summary.tsv"
archive
exit "$status"
