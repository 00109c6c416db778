# Sourced by the deploy/test-*.sh scripts that run the release binaries.
#
# release_bin_dir NAME
#   Prints $BOARDBRIDGE_BIN_DIR when set, else the release build's folder, building
#   boardbridge and boardsim there first when either is missing (NAME prefixes the messages).

release_bin_dir() {
    local name="$1" bin
    if [ -n "${BOARDBRIDGE_BIN_DIR:-}" ]; then
        echo "$BOARDBRIDGE_BIN_DIR"
        return
    fi
    . deploy/swift-toolchain.sh
    require_swift "$name" >&2
    bin="$(swift build -c release --show-bin-path)" || return 1
    if [ ! -x "$bin/boardbridge" ] || [ ! -x "$bin/boardsim" ]; then
        echo "$name: building boardbridge and boardsim (release)" >&2
        swift build -c release --product boardbridge >&2 || return 1
        swift build -c release --product boardsim >&2 || return 1
    fi
    echo "$bin"
}
