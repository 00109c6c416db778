# Sourced by the deploy/test-*.sh scripts that run the release binaries.
#
# release_bin_dir NAME
#   Prints $BOARDBRIDGE_BIN_DIR when set, else the release build's folder, building
#   boardbridge, boardbridge-hall (what `boardbridge hall` execs) and boardsim there first
#   when any is missing (NAME prefixes the messages).

release_bin_dir() {
    local name="$1" bin
    if [ -n "${BOARDBRIDGE_BIN_DIR:-}" ]; then
        echo "$BOARDBRIDGE_BIN_DIR"
        return
    fi
    . deploy/swift-toolchain.sh
    require_swift "$name" >&2
    bin="$(swift build -c release --show-bin-path)" || return 1
    if [ ! -x "$bin/boardbridge" ] || [ ! -x "$bin/boardbridge-hall" ] || [ ! -x "$bin/boardsim" ]; then
        echo "$name: building boardbridge, boardbridge-hall and boardsim (release)" >&2
        for product in boardbridge boardbridge-hall boardsim; do
            swift build -c release --product "$product" >&2 || return 1
        done
    fi
    echo "$bin"
}
