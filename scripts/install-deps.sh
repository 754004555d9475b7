#!/usr/bin/env bash
# Installs every Debian 12 package vxsynth needs to build, test and run on a CPU-only machine.
# Usage: scripts/install-deps.sh   (as root, or with sudo available)
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git
  libfmt-dev nlohmann-json3-dev libcli11-dev libspdlog-dev libtomlplusplus-dev libelf-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf picolibc-riscv64-unknown-elf
  bubblewrap  # refine: isolation of builds, candidate runs and external agents (docs/sandbox.md)
  python3 python3-pytest python3-numpy python3-torch
  python3-matplotlib  # vxsynth report: the figure layer (python/vxsynth_torch/figures.py)
  chromium  # python/tests/test_report_page.py: the report page in a real headless browser
  libssl-dev  # refine: SHA-256 of candidate sources (OpenSSL EVP)
  zlib1g-dev
  clang libclang-rt-14-dev  # scripts/fuzz-decoder.sh: libFuzzer target of the vxsim decoder
  slurm-wlm munge  # suite --executor slurm: the suite test starts a single-node Slurm (docs/suite.md)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# nvcc is optional: CUDA candidates are compiled for sm_90 when /usr/local/cuda/bin/nvcc exists.
