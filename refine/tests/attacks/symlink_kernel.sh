#!/bin/sh
# Catalogue attack: kernel.cpp replaced by a symbolic link.
set -e
cd sources
cp vortex/kernel.cpp /tmp/k.cpp 2>/dev/null || true; rm vortex/kernel.cpp; ln -s /tmp/k.cpp vortex/kernel.cpp
python3 "$(dirname "$0")/edit.py" ../output.json "symlink_kernel"
