#!/usr/bin/env bash
# The one test command: installs what is missing, checks formatting, builds, and runs
# every test (unit, integration against real dbus-daemon/boardsim/mosquitto, end to end),
# in parallel. `deploy/test.sh --repeat N` runs the suite N times and names every test
# that failed in any of them.
# Fails loudly: any step that fails stops the run with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."

repeat=1
while [ $# -gt 0 ]; do
    case "$1" in
        --repeat) repeat="${2:?--repeat needs a count}"; shift 2 ;;
        --repeat=*) repeat="${1#--repeat=}"; shift ;;
        *) echo "usage: deploy/test.sh [--repeat N]" >&2; exit 2 ;;
    esac
done
case "$repeat" in '' | *[!0-9]* | 0) echo "test.sh: --repeat takes a positive count" >&2; exit 2 ;; esac

./deploy/install-deps.sh

. deploy/swift-toolchain.sh
require_swift test.sh

echo "== swift format lint --strict" >&2
swift format lint --strict --recursive Package.swift Sources Tests

echo "== swift build (debug, all targets, warnings are errors)" >&2
swift build "${test_build_flags[@]}"


# Every suite runs in one parallel phase (each starts its own buses, brokers and boards on
# free ports and private paths). --repeat N runs the whole suite N times and names every
# test that failed in any run: a flaky test is a race to find.
logs="$(mktemp -d /tmp/boardbridge-test.XXXXXX)"
trap 'rm -rf "$logs"' EXIT

# The test bundle is run as `swift test --skip-build` runs it, without SwiftPM around it:
# `swift test` holds the build folder's lock while the tests run, which would keep every
# `swift build` beside it (the integration chains of .ci/run) waiting for the whole run.
tests_bundle="$(swift build --show-bin-path)/BoardBridgePackageTests.xctest"

# Runs the test bundle once ($1: its log; the rest: its arguments) and adds its counts to
# phase_total and phase_failed; the names of the tests that failed go to "$1.failed".
run_phase() {
    local log="$1"
    shift
    local status=0 summary total failed
    NO_COLOR=1 "$tests_bundle" --testing-library swift-testing "$@" 2>&1 | tee "$log" || status=$?
    summary="$(grep -E 'Test run with [0-9]+ tests?' "$log" | tail -1 || true)"
    total="$(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<<"$summary")"
    grep -E '^✘ Test .* failed after' "$log" | grep -v '^✘ Test run with' \
        | sed -E 's/^✘ Test (.*) failed after.*/\1/' >"$log.failed" || true
    failed="$(wc -l <"$log.failed")"
    if [ -z "$total" ]; then
        echo "test.sh: $log: no test summary found" >&2
        failed=$((failed > 0 ? failed : 1))
        total=0
    elif [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
        failed=1
        echo "the test bundle exited with $status" >"$log.failed"
    fi
    phase_total=$((phase_total + total))
    phase_failed=$((phase_failed + failed))
}

runs_failed=0
for run in $(seq 1 "$repeat"); do
    phase_total=0
    phase_failed=0
    echo "== every test, in parallel (run $run of $repeat)" >&2
    run_phase "$logs/run-$run-parallel.log" --parallel
    echo "tests (run $run of $repeat): $((phase_total - phase_failed)) passed, $phase_failed failed"
    [ "$phase_failed" -eq 0 ] || runs_failed=$((runs_failed + 1))
done
total=$phase_total
if [ "$runs_failed" -gt 0 ]; then
    echo "test.sh: $runs_failed of $repeat runs failed; tests that failed (runs):" >&2
    cat "$logs"/run-*.log.failed | sort | uniq -c | sort -rn >&2
    echo "tests: failed in $runs_failed of $repeat runs"
    exit 1
fi
echo "tests: $total passed, 0 failed$([ "$repeat" -gt 1 ] && echo " (each of $repeat runs)")"
