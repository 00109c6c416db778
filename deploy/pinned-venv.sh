# Sourced by the deploy/test-*.sh scripts that run Python test tools from PyPI.
#
# pinned_venv NAME REQUIREMENTS
#   Prints the path of a venv under ~/.cache/boardbridge (or $XDG_CACHE_HOME/boardbridge)
#   named NAME-py<major.minor>-<hash of the pins> that holds exactly the pinned REQUIREMENTS file. It is reused
#   while the file's hash matches the stamp written after a complete install; otherwise it is
#   made again from scratch, so a half-finished install is never reused. Returns non-zero
#   (and removes the venv) when python3 has no venv module or pip cannot install the pins.

pinned_venv() {
    local name="$1" requirements="$2" minor cache venv stamp wanted
    minor="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" || return 1
    cache="${XDG_CACHE_HOME:-$HOME/.cache}/boardbridge"
    wanted="$(sha256sum <"$requirements" | cut -d' ' -f1)" || return 1
    # One venv per pin set: checkouts with different pins never rebuild each other's.
    venv="$cache/$name-py$minor-${wanted:0:12}"
    stamp="$venv/.boardbridge-requirements"
    if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
        echo "installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $venv" >&2
        rm -rf "$venv"
        mkdir -p "$cache"
        if ! { python3 -m venv "$venv" >&2 &&
            "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements" >&2; }; then
            rm -rf "$venv"
            return 1
        fi
        echo "$wanted" >"$stamp"
    fi
    echo "$venv"
}
