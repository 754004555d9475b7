#!/bin/sh
# Scripted external agent of the sandbox catalogue: revision n runs the n-th attack of CATALOGUE
# on the work directory it is given (docs/agent-protocol.md).
set -e
here=$(dirname "$0")
dir=$1
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["revision"])' "$dir/input.json")
script=$(grep -v '^#' "$here/CATALOGUE" | grep -v '^$' | sed -n "${n}p" | cut -d' ' -f1)
[ -n "$script" ] || { echo "no attack $n"; exit 4; }
cd "$dir"
exec /bin/sh "$here/$script" "$dir"
