#!/usr/bin/env bash
# Checks on a lent GPU machine that the ncu-profiled run is confined (docs/sandbox.md "Isolation",
# `unshare` row): a small CUDA program that tries to read a file of a hidden directory and to write
# into the checkout, then runs an FFMA kernel, is profiled by ncu inside
# `vxsynth sandbox run --isolation unshare --gpu` (the carried vxsynth of scripts/device-pack.sh).
# Passes when ncu measured the kernel (its FFMA count is the kernel's 16 x 256 threads x 64), the
# file was hidden, the write refused and the command held no capability beyond the driver's.
# Usage (repository root, as root):  scripts/device-sandbox.sh     Environment: VXDEV_TARBALL.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tarball=${VXDEV_TARBALL:-$repo/.devcarry/vxdev.tar.xz}
command -v ncu >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
t=$(mktemp -d /tmp/vxsandbox.XXXXXX)
trap 'rm -rf "$t"' EXIT
tar -C "$t" -xJf "$tarball" vxdev/bin/vxsynth vxdev/lib vxdev/PACKED
cat "$t/vxdev/PACKED"
mkdir -p "$t/lib-missing"
for so in "$t"/vxdev/lib/*; do
  ldconfig -p | grep "^[[:space:]]*$(basename "$so") " >/dev/null || ln -s "$so" "$t/lib-missing/$(basename "$so")"
done
export LD_LIBRARY_PATH="$t/lib-missing${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
grep -H RmProfilingAdminOnly /proc/driver/nvidia/params || true

run=$t/run
cuda=$run/r0001/cuda
mkdir -p "$cuda"
echo reference > "$run/ref_output.bin"
cat > "$cuda/probe.cu" <<'CU'
#include <cstdio>
__global__ void vxs_probe(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i];
  for (int k = 0; k < 64; ++k) a = a * 1.0001f + 0.5f;
  x[i] = a;
}
int main(int argc, char** argv) {
  FILE* f = argc > 2 ? std::fopen(argv[1], "rb") : nullptr;
  std::printf(f ? "probe: LEAK: %s readable\n" : "probe: hidden: %s\n", argv[1]);
  FILE* g = argc > 2 ? std::fopen(argv[2], "wb") : nullptr;
  std::printf(g ? "probe: LEAK: %s written\n" : "probe: read-only: %s\n", argv[2]);
  float* x = nullptr;
  cudaMalloc(&x, 4096 * sizeof(float));
  cudaMemset(x, 0, 4096 * sizeof(float));
  vxs_probe<<<16, 256>>>(x, 4096);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("probe: kernel: %s\n", cudaGetErrorString(e));
  return e == cudaSuccess && !f && !g ? 0 : 1;
}
CU
(cd "$cuda" && nvcc -arch=sm_90 -O2 -o probe probe.cu)
sbx=("$t/vxdev/bin/vxsynth" sandbox run --isolation unshare --gpu --work "$cuda" --hide "$run" --timeout 120 --)
"${sbx[@]}" sh -c 'grep Cap /proc/self/status; ls /dev | tr "\n" " "; echo' | tee "$t/caps.txt"
start=$(date +%s)
"${sbx[@]}" "$(command -v ncu)" --metrics launch__grid_size,launch__block_size,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum \
  --csv --page raw --print-units base ./probe "$run/ref_output.bin" "$repo/sandbox-probe-write" | tee "$t/ncu.txt" || true
echo "ncu in the sandbox: $(($(date +%s) - start)) s"
ok=1
for want in "probe: hidden:" "probe: read-only:" "probe: kernel: no error" '"vxs_probe'; do
  grep -q "$want" "$t/ncu.txt" || { echo "device-sandbox: FAIL: no '$want' in the output"; ok=0; }
done
grep vxs_probe "$t/ncu.txt" | grep -Eq '"262,?144"' || { echo "device-sandbox: FAIL: FFMA count is not 262144"; ok=0; }
[ ! -e "$repo/sandbox-probe-write" ] || { echo "device-sandbox: FAIL: the checkout was written"; rm -f "$repo/sandbox-probe-write"; ok=0; }
((ok)) && echo "device-sandbox: PASS" || { echo "device-sandbox: FAIL"; exit 1; }
