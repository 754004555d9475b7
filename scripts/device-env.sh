# Sourced by scripts/device-suite.sh and scripts/device-profile.sh on a lent GPU machine: unpacks
# the pack made by scripts/device-pack.sh (VXDEV_TARBALL, default .devcarry/vxdev.tar.xz) into
# $repo/.devcarry/vxdev (where vxsynth_torch looks for the executable), links only the carried
# shared libraries the system lacks (nvcc and ncu keep theirs), fills sdk.mk's placeholders, and
# proves the relocated riscv toolchain on a probe kernel (docs/reconstruct.md "Running CUDA-first
# on a GPU machine"). Sets: dev (the unpacked pack), host_cxx; exports LD_LIBRARY_PATH.
# Needs: repo (the checkout root).
vxdev_tarball=${VXDEV_TARBALL:-$repo/.devcarry/vxdev.tar.xz}
[ -f "$vxdev_tarball" ] || {
  echo "device: $vxdev_tarball does not exist: run scripts/device-pack.sh on a machine with the build and carry .devcarry" >&2
  exit 2
}
dev=$repo/.devcarry/vxdev
rm -rf "$dev"
tar -C "$repo/.devcarry" -xJf "$vxdev_tarball"
cat "$dev/PACKED"
mkdir -p "$dev/lib-missing"
for so in "$dev"/lib/*; do
  so_name=$(basename "$so")
  ldconfig -p | grep "^[[:space:]]*$so_name " >/dev/null || ln -sf "$so" "$dev/lib-missing/$so_name"
done
export LD_LIBRARY_PATH="$dev/lib-missing${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "carried libraries in use: $(ls "$dev/lib-missing" | tr '\n' ' ')"
host_cxx=$(command -v c++ || command -v g++) || { echo "device: no host C++ compiler" >&2; exit 1; }
sed -e "s#@VXDEV@#$dev#g" -e "s#@REPO@#$repo#g" -e "s#@HOST_CXX@#$host_cxx#g" "$dev/sdk/sdk.mk.in" > "$dev/sdk/sdk.mk"
vxdev_probe=$(mktemp -d /tmp/vxprobe.XXXXXX)
printf 'int main() { return 0; }\n' > "$vxdev_probe/probe.cpp"
make -s -C "$vxdev_probe" -f - probe <<MK
include $dev/sdk/sdk.mk
probe:
	\$(VX_CXX) \$(VX_CXXFLAGS) probe.cpp \$(VX_LDFLAGS) -o probe.elf
MK
rm -rf "$vxdev_probe"
echo "riscv toolchain: ok ($("$dev/riscv/bin/riscv64-unknown-elf-g++" --version | head -1))"
