#!/usr/bin/env bash
# Installs dependencies, builds (Release, warnings as errors), and runs every CPU test:
# GoogleTest suites through CTest and the Python package's pytest suite. Both suites always run;
# the script fails if either fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
status=0
ctest --preset release || status=$?
# Debian's python3-torch lives in the system interpreter's dist-packages.
PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" /usr/bin/python3 -m pytest -q python/tests || status=$?
exit "$status"
