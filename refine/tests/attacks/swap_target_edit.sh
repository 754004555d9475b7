#!/bin/sh
# Catalogue attack: the operator-swap target edited.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" cuda/swap.json replace '"framework_op"' '"framework_op_was": 1, "framework_op"'
python3 "$(dirname "$0")/edit.py" ../output.json "swap_target_edit"
