#!/usr/bin/env bash
# The hall view in a real browser: Debian's headless chromium and chromium-driver, driven by
# Selenium and prometheus-client from PyPI (pinned: Tests/HallBrowser/requirements.txt) in a venv
# under ${XDG_CACHE_HOME:-$HOME/.cache}/boardbridge/hall-browser-py<x.y>-<lock hash>, against the release
# `boardbridge hall` fed by two bridges (two nodes) with boardsim boards on a private
# dbus-daemon and a private mosquitto (Tests/HallBrowser/test_hall.py). Writes the README's
# screenshots into docs/images/.
#
#   ./deploy/test-hall.sh
# Binaries: $BOARDBRIDGE_BIN_DIR, else `swift build -c release --show-bin-path` (built if
# missing). Under CI=true a missing tool fails the run (it always does: nothing is skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in chromium chromedriver dbus-daemon mosquitto mosquitto_pub mosquitto_sub python3; do
    command -v "$tool" >/dev/null || { echo "test-hall: $tool missing (./deploy/install-deps.sh)" >&2; exit 1; }
done
. deploy/release-bin.sh
bin="$(release_bin_dir test-hall.sh)"
. deploy/pinned-venv.sh
venv="$(pinned_venv hall-browser Tests/HallBrowser/requirements.txt)" || {
    echo "test-hall: cannot install Tests/HallBrowser/requirements.txt" >&2
    exit 1
}
BOARDBRIDGE_BIN_DIR="$bin" BOARDBRIDGE_IMAGES="${BOARDBRIDGE_IMAGES:-docs/images}" \
    timeout 600 "$venv/bin/python" Tests/HallBrowser/test_hall.py
