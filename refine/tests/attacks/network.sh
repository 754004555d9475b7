#!/bin/sh
# Catalogue attack: the agent opens a network connection (the abstract unix socket the catalogue
# test listens on outside the sandbox, then an outside address); it exits 3 when both are refused.
set -e
cd sources
if python3 -c '
import socket
s = socket.socket(socket.AF_UNIX)
s.settimeout(2)
s.connect("\0vxsynth-catalogue-net")' 2>/dev/null; then echo 'network reachable (unix)'
elif python3 -c 'import socket; socket.create_connection(("1.1.1.1", 53), timeout=2)' 2>/dev/null; then echo 'network reachable'
else echo 'no network'; exit 3; fi
python3 "$(dirname "$0")/edit.py" ../output.json "network"
