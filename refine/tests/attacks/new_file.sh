#!/bin/sh
# Catalogue attack: a new file beside the named ones.
set -e
cd sources
echo 'int vxs_extra;' > vortex/extra.h
python3 "$(dirname "$0")/edit.py" ../output.json "new_file"
