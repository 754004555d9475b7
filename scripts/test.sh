#!/usr/bin/env bash
# Installs dependencies, builds (Release, warnings as errors), and runs every CPU test:
# GoogleTest suites through CTest, the Python package's pytest suite, then a short fuzzing run of
# the vxsim decoder (scripts/fuzz-decoder.sh, VXSYNTH_FUZZ_SECONDS, default 60). All three always
# run; the script fails if any fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
status=0
ctest --preset release || status=$?
# Debian's python3-torch lives in the system interpreter's dist-packages.
PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" /usr/bin/python3 -m pytest -q python/tests || status=$?
# Then a short libFuzzer run of the vxsim decoder (Clang build in build/fuzz; ~60 s of fuzzing).
scripts/fuzz-decoder.sh "${VXSYNTH_FUZZ_SECONDS:-60}" || status=$?
exit "$status"
