#!/bin/sh
# Catalogue attack: main.cpp launches one block (its own spec); the kernel unchanged.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/main.cpp replace 'int main(' 'int vxs_unused_marker;
int main('
python3 "$(dirname "$0")/edit.py" vortex/main.cpp replace 'c.cpu_reference = ' 'c.grid[0] = 1; c.grid[1] = 1; c.grid[2] = 1;
  c.cpu_reference = '
python3 "$(dirname "$0")/edit.py" ../output.json "host_partial_grid"
