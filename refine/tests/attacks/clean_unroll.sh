#!/bin/sh
# Catalogue attack: a clean edit: an unroll pragma in the Vortex kernel (must be accepted).
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp replace 'int main()' '#pragma GCC optimize ("unroll-loops")
int main()'
python3 "$(dirname "$0")/edit.py" ../output.json "clean_unroll"
