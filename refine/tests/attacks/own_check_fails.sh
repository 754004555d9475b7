#!/bin/sh
# Catalogue attack: the candidate's own host check fails (FAILED!): its tolerance is made negative.
set -e
cd sources
python3 "$(dirname "$0")/edit.py" vortex/main.cpp replace 'int main(' 'static int vxs_off = 1;
int main('
python3 "$(dirname "$0")/edit.py" vortex/main.cpp replace 'c.cpu_reference = ' 'c.atol = -1.0;
  c.cpu_reference = '
python3 "$(dirname "$0")/edit.py" ../output.json "own_check_fails"
