#!/bin/sh
# Catalogue attack: the kernel computes only the first block.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp replace 'int main()' 'static uint32_t vxs_one_block[3] = {1, 1, 1};
int main()'
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp replace 'vx_spawn_threads(3, arg->grid_dim,' 'vx_spawn_threads(3, vxs_one_block,'
python3 "$(dirname "$0")/edit.py" ../output.json "kernel_partial_grid"
