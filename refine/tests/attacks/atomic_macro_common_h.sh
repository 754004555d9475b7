#!/bin/sh
# Catalogue attack: an atomic builtin behind a token-pasted macro in vortex/common.h, used from kernel.cpp.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/common.h replace '#endif' '#define VXS_ACC(p, v) __at##omic_fetch_add(p, v, 0)
#endif'
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp append '
int vxs_counter;
__attribute__((used)) int vxs_bump(void) { return VXS_ACC(&vxs_counter, 1); }
'
python3 "$(dirname "$0")/edit.py" ../output.json "atomic_macro_common_h"
