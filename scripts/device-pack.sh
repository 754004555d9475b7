#!/usr/bin/env bash
# Packs what `vxsynth reconstruct --profile ncu` needs on a GPU machine that lacks this project's
# Debian build dependencies (the lent H200's image: CUDA, ncu, cmake, a host g++, no riscv
# toolchain, no fmt/spdlog/libelf/toml++): the vxsynth executable, the SDK build outputs
# (sdk.mk, libvxsdk.a, vxbin, the vxsim runtime archives), the riscv64-unknown-elf GCC +
# binutils + picolibc subset for the multilib sdk.mk names (VX_MULTILIB, rv32iaf/ilp32f for
# -march=rv32imaf -mabi=ilp32f), and the shared libraries they
# load that a glibc system may lack. x86-64 Linux on both sides; glibc >= Debian 12's 2.36.
#
# Usage: scripts/device-pack.sh [BUILD_DIR] [OUT_TARBALL]
#   BUILD_DIR    a configured and built vxsynth tree (default build/release)
#   OUT_TARBALL  default .devcarry/vxdev.tar.xz (carry .devcarry with the device call)
# On the GPU machine, scripts/device-reconstruct.sh unpacks it and rewrites sdk.mk's paths.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
out=${2:-.devcarry/vxdev.tar.xz}
[ -x "$build/cli/vxsynth" ] || { echo "device-pack: $build/cli/vxsynth not built" >&2; exit 1; }
[ -f "$build/sdk/sdk.mk" ] || { echo "device-pack: $build/sdk/sdk.mk missing" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/vxdev
mkdir -p "$root"/{bin,lib,sdk,riscv/bin}

# --- vxsynth and the SDK build outputs (stripped: the debug info is 10x the code).
install -m755 "$build/cli/vxsynth" "$root/bin/vxsynth"
strip "$root/bin/vxsynth"
cp "$build/sdk/libvxsdk.a" "$root/sdk/"
# sdk.mk with its absolute paths turned into placeholders (@VXDEV@ the unpacked bundle, @REPO@ the
# checkout, @HOST_CXX@ the host compiler) that scripts/device-reconstruct.sh fills in.
src_abs=$(pwd)
build_abs=$(cd "$build" && pwd)
sed -e "s#$build_abs/sdk\([/ ]\|$\)#@VXDEV@/sdk\1#g" \
    -e "s#$build_abs/[^ ]*/\(lib[^/ ]*\.a\)#@VXDEV@/sdk/\1#g" \
    -e "s#$build_abs/[^ ]*/\([^/ ]*\.o\)#@VXDEV@/sdk/\1#g" \
    -e "s#/usr/lib/x86_64-linux-gnu/\(lib[^/ ]*\.so[.0-9]*\)#@VXDEV@/sdk/\1#g" \
    -e "s#$src_abs/#@REPO@/#g" \
    -e "s#/usr/bin/riscv64-unknown-elf-#@VXDEV@/riscv/bin/riscv64-unknown-elf-#g" \
    -e "s#--specs=picolibc.specs#--specs=picolibc.specs --picolibc-prefix=@VXDEV@/riscv#g" \
    -e "s#^HOST_CXX\( *\):= .*#HOST_CXX\1:= @HOST_CXX@#" \
    "$build/sdk/sdk.mk" > "$root/sdk/sdk.mk.in"
if grep -n '/work\|/usr/' "$root/sdk/sdk.mk.in" | grep -v '^[0-9]*:#' >&2; then
  echo "device-pack: sdk.mk keeps a path of this machine (above)" >&2; exit 1
fi
riscv64-unknown-elf-strip --strip-debug "$root/sdk/libvxsdk.a"
install -m755 "$build/sdk/vxbin" "$root/sdk/vxbin"
strip "$root/sdk/vxbin"
# The runtime archives, objects (the signature hook) and shared libraries sdk.mk's VX_RUNTIME_LIB
# names (absolute paths there).
for f in $(sed -n 's/^VX_RUNTIME_LIB *:= *//p' "$build/sdk/sdk.mk" | tr ' ' '\n' | grep -E '^/.*\.(a|o|so[.0-9]*)$'); do
  cp -L "$f" "$root/sdk/$(basename "$f")"
  case $f in *.a) strip --strip-debug "$root/sdk/$(basename "$f")" ;; esac
done

# --- riscv64-unknown-elf toolchain subset (Debian's gcc/binutils/picolibc-riscv64-unknown-elf).
gcc_ver=$(riscv64-unknown-elf-gcc -dumpversion)
multilib=$(sed -n 's/^VX_MULTILIB *:= *//p' "$build/sdk/sdk.mk")
gcc_lib=/usr/lib/gcc/riscv64-unknown-elf/$gcc_ver
r=$root/riscv
for t in gcc g++ objdump objcopy; do cp "/usr/bin/riscv64-unknown-elf-$t" "$r/bin/"; done
mkdir -p "$r/lib/gcc/riscv64-unknown-elf/$gcc_ver/$multilib" "$r/lib/riscv64-unknown-elf/bin"
for f in cc1 cc1plus collect2 lto-wrapper liblto_plugin.so picolibc.specs picolibcpp.specs crtbegin.o crtend.o crti.o crtn.o; do
  [ -e "$gcc_lib/$f" ] && cp "$gcc_lib/$f" "$r/lib/gcc/riscv64-unknown-elf/$gcc_ver/"
done
cp -r "$gcc_lib/include" "$gcc_lib/include-fixed" "$r/lib/gcc/riscv64-unknown-elf/$gcc_ver/"
cp -r "$gcc_lib/$multilib/." "$r/lib/gcc/riscv64-unknown-elf/$gcc_ver/$multilib/"
for t in as ld ld.bfd; do cp /usr/lib/riscv64-unknown-elf/bin/$t "$r/lib/riscv64-unknown-elf/bin/"; done
pico=/usr/lib/picolibc/riscv64-unknown-elf
mkdir -p "$r/lib/picolibc/riscv64-unknown-elf/lib/$multilib"
cp -r "$pico/include" "$r/lib/picolibc/riscv64-unknown-elf/"
cp -r "$pico/lib/$multilib/." "$r/lib/picolibc/riscv64-unknown-elf/lib/$multilib/"
cp "$pico"/lib/*.ld "$r/lib/picolibc/riscv64-unknown-elf/lib/" 2>/dev/null || true
strip "$r"/bin/* "$r"/lib/riscv64-unknown-elf/bin/* \
  "$r/lib/gcc/riscv64-unknown-elf/$gcc_ver"/{cc1,cc1plus,collect2,lto-wrapper} 2>/dev/null || true

# --- Shared libraries the carried executables load, minus glibc and the GCC runtime (the target
# image has newer ones; carrying older copies could shadow them for nvcc and ncu).
{
  for exe in "$root/bin/vxsynth" "$root/sdk/vxbin" "$r"/bin/* "$r"/lib/riscv64-unknown-elf/bin/* \
             "$r/lib/gcc/riscv64-unknown-elf/$gcc_ver"/{cc1,cc1plus,collect2,lto-wrapper}; do
    ldd "$exe" 2>/dev/null | awk '/=> \//{print $3}'
  done
  ls "$root"/sdk/*.so* 2>/dev/null || true
} | sort -u | while read -r so; do
  case $(basename "$so") in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libgcc_s.so*|libstdc++.so*) continue ;;
  esac
  cp -L "$so" "$root/lib/$(basename "$so")"
  # The unversioned names the link lines use point at the carried file too.
done
for so in "$root"/sdk/*.so*; do
  soname=$(objdump -p "$so" | awk '/SONAME/{print $2}')
  [ -n "$soname" ] && [ ! -e "$root/lib/$soname" ] && cp "$so" "$root/lib/$soname"
done

{
  echo "packed: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) from $(git rev-parse --short HEAD)$(git diff --quiet || echo '+dirty')"
  echo "vxsynth build: $build"
  riscv64-unknown-elf-gcc --version | head -1
  echo "multilib: $multilib"
} > "$root/PACKED"
mkdir -p "$(dirname "$out")"
tar -C "$stage" -cJf "$out" vxdev
echo "device-pack: $out ($(du -h "$out" | cut -f1); unpacked $(du -sh "$root" | cut -f1))"
