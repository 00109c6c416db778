#!/usr/bin/env bash
# The one test command: installs what is missing, checks formatting, builds, and runs
# every test (unit, integration against real dbus-daemon/boardsim/mosquitto, end to end).
# Fails loudly: any step that fails stops the run with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."

./deploy/install-deps.sh

if ! command -v swift >/dev/null; then
    for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH"
    done
fi
command -v swift >/dev/null || { echo "test.sh: no Swift toolchain on PATH (install Swift 6.x)" >&2; exit 1; }

echo "== swift format lint --strict" >&2
swift format lint --strict --recursive Package.swift Sources Tests

echo "== swift build (debug, all targets, warnings are errors)" >&2
swift build --build-tests -Xswiftc -warnings-as-errors

echo "== swift test" >&2
# Integration suites start their own processes; run suites one at a time so that
# two suites never race for the same machine resources on a 2-core CI box.
swift test --skip-build --no-parallel
