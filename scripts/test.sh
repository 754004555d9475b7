#!/usr/bin/env bash
# Installs dependencies, builds (Release, warnings as errors), and runs every CPU test:
# GoogleTest suites through CTest and the Python package's pytest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --workflow --preset release
if [ -d python/tests ]; then
  # Debian's python3-torch lives in the system interpreter's dist-packages.
  PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" /usr/bin/python3 -m pytest -q python/tests
fi
