#!/usr/bin/env bash
# Real BlueZ clients against boardsim, one board of every family on a private dbus-daemon:
#   - bleak (PyPI, pinned in Tests/RealClients/requirements.txt; a venv under
#     ${XDG_CACHE_HOME:-$HOME/.cache}/boardbridge/realclients-py<x.y>, reused while the pins
#     are unchanged): Tests/RealClients/bleak_probe.py
#   - Debian's bluetoothctl (package bluez): Tests/RealClients/bluetoothctl_walk.py
# What a real client does with boardsim is what it would do with bluetoothd; a divergence
# that breaks either client fails here.
#
#   ./deploy/test-realclients.sh            both
#   ./deploy/test-realclients.sh bleak      one of them (bleak | bluetoothctl)
#
# Binaries: $BOARDBRIDGE_BIN_DIR, else `swift build -c release --show-bin-path` (boardsim
# built if missing). Under CI=true a missing tool or a failed install fails the run;
# otherwise it is reported and the run skips.
set -euo pipefail
cd "$(dirname "$0")/.."

only="${1:-}"
case "$only" in ""|bleak|bluetoothctl) ;; *) echo "test-realclients: unknown client $only" >&2; exit 64 ;; esac
ci="${CI:-false}"
missing() {
    if [ "$ci" = true ]; then echo "test-realclients: $1 (./deploy/install-deps.sh)" >&2; exit 1; fi
    echo "test-realclients: skipped: $1 (./deploy/install-deps.sh)" >&2
    exit 0
}
for tool in dbus-daemon dbus-send bluetoothctl python3; do
    command -v "$tool" >/dev/null || missing "$tool missing"
done
python3 -c 'import venv, ensurepip' 2>/dev/null || missing "python3 without venv/ensurepip (python3-venv)"

if [ -n "${BOARDBRIDGE_BIN_DIR:-}" ]; then
    bin="$BOARDBRIDGE_BIN_DIR"
else
    . deploy/swift-toolchain.sh
    require_swift test-realclients.sh
    bin="$(swift build -c release --show-bin-path)"
    [ -x "$bin/boardsim" ] || swift build -c release --product boardsim >&2
fi
[ -x "$bin/boardsim" ] || { echo "test-realclients: $bin/boardsim missing" >&2; exit 1; }

# The pinned bleak venv.
. deploy/pinned-venv.sh
venv="$(pinned_venv realclients Tests/RealClients/requirements.txt)" ||
    missing "cannot install Tests/RealClients/requirements.txt"

work="$(mktemp -d /tmp/realclients.XXXXXX)"
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

bus="unix:path=$work/bus"
dbus-daemon --session --nofork --address="$bus" >"$work/dbus.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -S "$work/bus" ] && break; sleep 0.05; done
[ -S "$work/bus" ] || { echo "test-realclients: dbus-daemon did not start: $(cat "$work/dbus.log")" >&2; exit 1; }
export DBUS_SYSTEM_BUS_ADDRESS="$bus"

boards='[{"family":"chessnut","address":"AA:BB:CC:00:00:01"},{"family":"chessup","address":"AA:BB:CC:00:00:02"},
{"family":"squareoff","address":"AA:BB:CC:00:00:03"},{"family":"pegasus","address":"AA:BB:CC:00:00:04"},
{"family":"millennium","address":"AA:BB:CC:00:00:05"},{"family":"ichessone","address":"AA:BB:CC:00:00:06"},
{"family":"cpp","address":"AA:BB:CC:00:00:07"}]'
# bluetoothd's own timings except the absent-board timeout (20 s would only make it slow).
echo '{"behavior": {"connectTimeout": 3}}' >"$work/boardsim.json"
arguments=(--bus "$bus" --config "$work/boardsim.json")
for entry in chessnut:01 chessup:02 squareoff:03 pegasus:04 millennium:05 ichessone:06 cpp:07; do
    arguments+=(--board "family=${entry%%:*},address=AA:BB:CC:00:00:${entry#*:}")
done
"$bin/boardsim" "${arguments[@]}" >"$work/boardsim.log" 2>&1 &
pids+=($!)
for _ in $(seq 200); do grep -q "ready on" "$work/boardsim.log" && break; sleep 0.05; done
grep -q "ready on" "$work/boardsim.log" || { echo "test-realclients: boardsim: $(cat "$work/boardsim.log")" >&2; exit 1; }

status=0
if [ -z "$only" ] || [ "$only" = bleak ]; then
    echo "== bleak $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("bleak"))')" >&2
    timeout 600 "$venv/bin/python" Tests/RealClients/bleak_probe.py \
        --boardsim "$bin/boardsim" --bus "$bus" --boards "$boards" || status=1
fi
if [ -z "$only" ] || [ "$only" = bluetoothctl ]; then
    echo "== $(bluetoothctl --version)" >&2
    timeout 600 python3 Tests/RealClients/bluetoothctl_walk.py \
        --boardsim "$bin/boardsim" --bus "$bus" --boards "$boards" || status=1
fi
if [ "$status" -ne 0 ]; then
    echo "test-realclients: FAILED; boardsim's log:" >&2
    tail -40 "$work/boardsim.log" >&2
fi
exit "$status"
