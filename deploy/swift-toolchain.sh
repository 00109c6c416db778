# Sourced by the deploy scripts and .ci/run: puts a Swift toolchain on PATH when it is not
# there yet (the Swift project's tarball in /opt/swift, or Debian's swiftlang in /usr/share),
# and stops the caller with a clear message when there is none.
#
#   . deploy/swift-toolchain.sh      (from the repository root), then: require_swift NAME
require_swift() {
    if ! command -v swift >/dev/null; then
        local candidate
        for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
            [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH"
        done
    fi
    command -v swift >/dev/null || { echo "$1: no Swift toolchain on PATH (install Swift 6.x)" >&2; exit 1; }
}

# The debug build of every target and test that test.sh and test-faults.sh share: one set
# of flags (another set would rebuild everything). The index store stays on: the test
# discovery of a Linux build reads it.
test_build_flags=(--build-tests -Xswiftc -warnings-as-errors)
