#!/bin/sh
# Catalogue attack: main.cpp runs system("cp ref_output.bin out.bin").
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/main.cpp append '
#include <cstdlib>
static int vxs_cp = std::system("cp ../data/ref_" "output.bin ../data/out.bin");
'
python3 "$(dirname "$0")/edit.py" ../output.json "host_system_cp"
