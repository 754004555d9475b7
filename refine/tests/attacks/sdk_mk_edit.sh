#!/bin/sh
# Catalogue attack: the SDK's sdk.mk edited outside the agent's directory.
set -e
cd sources
sdk="$(dirname "$0")/../../../build/release/sdk/sdk.mk"
if echo '# vxsynth-attack' >> "$sdk" 2>/dev/null; then echo "wrote $sdk"; else echo "sdk.mk is read-only"; exit 3; fi
python3 "$(dirname "$0")/edit.py" ../output.json "sdk_mk_edit"
