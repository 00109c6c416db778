#!/usr/bin/env bash
# The fault-injection suite (issue #29, docs/faults.md): FaultInjectionTests against the
# release binaries of boardbridge and boardsim, in a network namespace of its own when this
# runs as root (its brokers then share no loopback port with anything else), and a table of
# what every class published, reported, lost and got wrong.
#
#   ./deploy/test-faults.sh
#
# Binaries: $BOARDBRIDGE_BIN_DIR, else the release build (built when missing). The test
# runner is the debug test build (built when out of date).
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/release-bin.sh
bin="$(release_bin_dir test-faults.sh)"
. deploy/swift-toolchain.sh
require_swift test-faults.sh
swift build "${test_build_flags[@]}" >&2

log="$(mktemp /tmp/boardbridge-faults.XXXXXX)"
trap 'rm -f "$log"' EXIT
# The bundle itself, not `swift test`, which would hold the build folder's lock throughout.
bundle="$(swift build --show-bin-path)/BoardBridgePackageTests.xctest"
run=(env NO_COLOR=1 BOARDBRIDGE_FAULT_SUITE=1 BOARDBRIDGE_PRODUCTS="$bin" "$bundle" --testing-library swift-testing
    --filter FaultInjectionTests)
. deploy/own-loopback.sh
status=0
in_own_loopback "${run[@]}" >"$log" 2>&1 || status=$?
grep -E '^✘|Test run with' "$log" || true
ran="$(grep -c '^fault-injection:' "$log" || true)"
if [ "$status" -ne 0 ] || [ "$ran" -lt 6 ]; then
    echo "test-faults: failed (exit $status, $ran of 6 classes reported); the whole log:" >&2
    cat "$log" >&2
    exit 1
fi
echo "== fault injection: plies published / reported to the arbiter / lost / wrong, per class"
grep -h '^fault-injection:' "$log" | sed 's/^fault-injection: /  /'
