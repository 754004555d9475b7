#!/bin/sh
# Catalogue attack: an AMO instruction emitted as a raw .word (no mnemonic in any text).
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/kernel.cpp append '
__attribute__((used, retain)) void vxs_amo(int* p) { asm volatile(".word 0x00b5202f" :: "r"(p)); }
'
python3 "$(dirname "$0")/edit.py" ../output.json "amo_word"
