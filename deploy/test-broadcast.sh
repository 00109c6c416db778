#!/usr/bin/env bash
# A broadcast round end to end (issue #22): 16 boardsim boards of five families on a private
# dbus-daemon, two bridge processes (two nodes), a private mosquitto and the real
# `boardbridge hall` broadcasting the round; every PGN served or written is parsed and
# replayed with python-chess from PyPI (pinned: Tests/Broadcast/requirements.txt) in a venv
# under ${XDG_CACHE_HOME:-$HOME/.cache}/boardbridge/broadcast-py<x.y> (Tests/Broadcast/test_broadcast.py).
#
#   ./deploy/test-broadcast.sh
# Binaries: $BOARDBRIDGE_BIN_DIR, else `swift build -c release --show-bin-path` (built if
# missing). Under CI=true a missing tool fails the run (it always does: nothing is skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in dbus-daemon mosquitto mosquitto_sub python3; do
    command -v "$tool" >/dev/null || { echo "test-broadcast: $tool missing (./deploy/install-deps.sh)" >&2; exit 1; }
done
. deploy/release-bin.sh
bin="$(release_bin_dir test-broadcast.sh)"
. deploy/pinned-venv.sh
venv="$(pinned_venv broadcast Tests/Broadcast/requirements.txt)" || {
    echo "test-broadcast: cannot install Tests/Broadcast/requirements.txt" >&2
    exit 1
}
# In a network namespace of its own when it can (deploy/own-loopback.sh): .ci/run runs it
# beside other loopback tests.
. deploy/own-loopback.sh
in_own_loopback env BOARDBRIDGE_BIN_DIR="$bin" timeout 600 "$venv/bin/python" Tests/Broadcast/test_broadcast.py
