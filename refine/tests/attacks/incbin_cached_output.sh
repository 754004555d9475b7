#!/bin/sh
# Catalogue attack: a cached output .incbin-ed into the kernel image.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp append '
asm(".section .rodata\n.incbin \"/tmp/cached_out.bin\"\n.text");
'
python3 "$(dirname "$0")/edit.py" ../output.json "incbin_cached_output"
