#!/bin/sh
# Catalogue attack: the CUDA launch's block size changed at the launch site (#define/#undef style).
set -e
cd sources
python3 "$(dirname "$0")/edit.py" cuda/candidate.cu replace '__global__' '#undef VXS_BLOCK_SIZE_PLACEHOLDER
__global__'
python3 - <<'PY'
import re
p = 'cuda/candidate.cu'
s = open(p).read()
m = re.search(r'<<<\s*([^,>]+),\s*([^,>]+?)\s*(,[^>]*)?>>>', s)
if not m:
    raise SystemExit('no launch site')
blk = m.group(2)
s = s.replace(m.group(0), m.group(0).replace(blk, '(' + blk + ') / 2', 1), 1)
open(p, 'w').write(s)
PY
python3 "$(dirname "$0")/edit.py" ../output.json "cuda_block_size_redefined"
