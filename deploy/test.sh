#!/usr/bin/env bash
# The one test command: installs what is missing, checks formatting, builds, and runs
# every test (unit, integration against real dbus-daemon/boardsim/mosquitto, end to end).
# Fails loudly: any step that fails stops the run with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."

./deploy/install-deps.sh

. deploy/swift-toolchain.sh
require_swift test.sh

echo "== swift format lint --strict" >&2
swift format lint --strict --recursive Package.swift Sources Tests

echo "== swift build (debug, all targets, warnings are errors)" >&2
swift build --build-tests -Xswiftc -warnings-as-errors

echo "== swift test" >&2
# Integration suites start their own processes; run suites one at a time so that
# two suites never race for the same machine resources on a 2-core CI box.
log="$(mktemp /tmp/boardbridge-test.XXXXXX)"
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build --no-parallel 2>&1 | tee "$log" || status=$?
# One plain closing line (XCTest prints "Executed 0 tests" first: all tests are Swift Testing).
summary="$(grep -E 'Test run with [0-9]+ tests?' "$log" | tail -1 || true)"
total="$(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<<"$summary")"
failed="$(grep -E '^✘ Test [^ ]+.* failed after' "$log" | grep -vc 'Test run with' || true)"
if [ -z "$total" ]; then
    echo "test.sh: no test summary found" >&2
    exit 1
fi
if [ "$status" -ne 0 ] || [ "$failed" -gt 0 ]; then
    echo "tests: $((total - failed)) passed, $failed failed"
    exit 1
fi
echo "tests: $total passed, 0 failed"
