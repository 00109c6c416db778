#!/usr/bin/env bash
# The bridge against a real Home Assistant core: every board family simulated by boardsim,
# a private mosquitto, the release bridge, and Home Assistant from PyPI (pinned), checked
# through Home Assistant's REST and websocket API by Tests/HomeAssistant (pytest).
#
#   ./deploy/test-homeassistant.sh                 every tested Home Assistant version
#   ./deploy/test-homeassistant.sh 2024.3.3        one of them
#   ./deploy/test-homeassistant.sh -- -k buttons   extra pytest arguments after --
#   ./deploy/test-homeassistant.sh --install-only  only create the venvs (e.g. to warm a CI cache)
#   ./deploy/test-homeassistant.sh --relock        resolve again and rewrite the lock files
#
# Every package is pinned: Tests/HomeAssistant/requirements/ha-<version>.txt (pip freeze of a
# venv that passed). One venv per Home Assistant version and Python, under
# ${BOARDBRIDGE_HA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/boardbridge}/ha-<version>-py<x.y>,
# reused while its lock file is unchanged (a stamp file holds the lock's hash).
# Binaries: $BOARDBRIDGE_BIN_DIR, else `swift build -c release --show-bin-path` (built if
# missing). Under CI=true a missing Python or a failed install fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Tested versions: "<homeassistant version> <pythons> <paho-mqtt> <device_discovery> [pins]".
# <pythons>: the Python minor versions it runs on, preferred first (2024.3 needs >= 3.11,
# 2025.2 and later >= 3.13). paho-mqtt is the version the release's MQTT integration pins
# (its manifest.json). [pins]: extra pins for resolving (2024.3's hass-nabucasa imports
# josepy.ComparableX509, gone in josepy 2). The lock files pin everything else.
versions=(
    "2024.3.3 3.12,3.11 1.6.1 false josepy==1.14.0"
    "2025.4.4 3.13 2.1.0 true"
)

selected=()
pytest_args=()
install_only=false
relock=false
while [ $# -gt 0 ]; do
    case "$1" in
        --) shift; pytest_args=("$@"); break ;;
        --install-only) install_only=true; shift ;;
        --relock) relock=true; shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) selected+=("$1"); shift ;;
    esac
done

ci="${CI:-false}"
cache="${BOARDBRIDGE_HA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/boardbridge}"
mkdir -p "$cache"

# Where a Python of a given minor version lives on this machine.
find_python() {
    local minor="$1" candidate
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$minor".*/bin/"python$minor" \
        /usr/bin/"python$minor" /usr/local/bin/"python$minor" "python$minor"; do
        # Must run and have venv (a pyenv shim without that version does not).
        if "$candidate" -c 'import venv, ensurepip' >/dev/null 2>&1; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

if [ -n "${BOARDBRIDGE_BIN_DIR:-}" ]; then
    bin="$BOARDBRIDGE_BIN_DIR"
else
    . deploy/swift-toolchain.sh
    require_swift test-homeassistant.sh
    bin="$(swift build -c release --show-bin-path)"
    if [ ! -x "$bin/boardbridge" ] || [ ! -x "$bin/boardsim" ]; then
        echo "test-homeassistant: building boardbridge and boardsim (release)" >&2
        swift build -c release --product boardbridge >&2
        swift build -c release --product boardsim >&2
    fi
fi
for tool in boardbridge boardsim; do
    [ -x "$bin/$tool" ] || { echo "test-homeassistant: $bin/$tool missing" >&2; exit 1; }
done
for tool in mosquitto dbus-daemon; do
    command -v "$tool" >/dev/null || { echo "test-homeassistant: $tool missing (./deploy/install-deps.sh)" >&2; exit 1; }
done

# Creates or reuses the venv of one version; prints its path.
prepare_venv() {
    local version="$1" minors="$2" paho="$3" pins="$4" minor python="" venv stamp wanted started
    local lock="Tests/HomeAssistant/requirements/ha-$version.txt"
    local integrations="http,api,websocket_api,auth,config,camera,mqtt,device_automation,automation,button,select,sensor,binary_sensor,event"
    if [ "$relock" = true ] || [ ! -f "$lock" ]; then
        wanted="resolved"
    else
        wanted="lock $(sha256sum <"$lock" | cut -d' ' -f1)"
    fi
    for minor in ${minors//,/ }; do
        venv="$cache/ha-$version-py$minor"
        stamp="$venv/.boardbridge-requirements"
        if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && [ -x "$venv/bin/hass" ]; then
            echo "test-homeassistant: reusing $venv" >&2
            echo "$venv"
            return 0
        fi
    done
    for minor in ${minors//,/ }; do
        python="$(find_python "$minor")" && break
    done
    if [ -z "$python" ]; then
        echo "test-homeassistant: no Python ${minors//,/ or } on this machine (Home Assistant $version needs it)" >&2
        return 2
    fi
    venv="$cache/ha-$version-py$minor"
    stamp="$venv/.boardbridge-requirements"
    started=$SECONDS
    echo "test-homeassistant: installing Home Assistant $version into $venv (Python $minor: $python)" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv" || return 1
    "$venv/bin/pip" install -q --disable-pip-version-check --upgrade pip==26.3 >&2 || return 1
    if [ "$wanted" != resolved ]; then
        # --no-compile: byte-compiling all of Home Assistant takes minutes on a busy machine;
        # the modules a run imports are compiled then, into the venv, once.
        "$venv/bin/pip" install -q --disable-pip-version-check --no-compile -r "$lock" >&2 || return 1
        echo "$wanted" >"$stamp"
        echo "test-homeassistant: installed Home Assistant $version from $lock in $((SECONDS - started)) s" >&2
        echo "$venv"
        return 0
    fi
    # Resolving (no lock yet, or --relock): Home Assistant, the paho-mqtt its MQTT integration
    # pins, pytest, then the requirements of what the test and Home Assistant load.
    # shellcheck disable=SC2086 # pins: words
    "$venv/bin/pip" install -q --disable-pip-version-check "homeassistant==$version" "paho-mqtt==$paho" \
        pytest==8.3.5 $pins >&2 || return 1
    # The requirements of the integrations the test loads (and their dependencies), as the
    # release's manifests pin them, within the release's package constraints: hass then
    # runs with --skip-pip and never installs anything itself.
    "$venv/bin/python" - "$integrations" >"$venv/integration-requirements.txt" <<'PY'
import json, pathlib, sys
import homeassistant.bootstrap as bootstrap
import homeassistant.components as components
root = pathlib.Path(components.__path__[0])
# What the test loads, plus what Home Assistant always sets up (the frontend is critical:
# without it, Home Assistant starts in recovery mode).
todo = sys.argv[1].split(",")
for name in ("CORE_INTEGRATIONS", "LOGGING_INTEGRATIONS", "DEFAULT_INTEGRATIONS", "CRITICAL_INTEGRATIONS"):
    todo.extend(getattr(bootstrap, name, ()))
# Not Home Assistant Cloud: nothing here loads it (its hass-nabucasa is a core requirement).
seen, requirements = {"cloud"}, set()
while todo:
    domain = todo.pop()
    if domain in seen:
        continue
    seen.add(domain)
    manifest = json.loads((root / domain / "manifest.json").read_text())
    requirements.update(manifest.get("requirements", []))
    todo.extend(manifest.get("dependencies", []) + manifest.get("after_dependencies", []))
print("\n".join(sorted(requirements)))
PY
    [ $? -eq 0 ] || return 1
    local constraints
    constraints="$("$venv/bin/python" -c 'import homeassistant, pathlib; print(pathlib.Path(homeassistant.__file__).parent / "package_constraints.txt")')" || return 1
    if [ -s "$venv/integration-requirements.txt" ]; then
        "$venv/bin/pip" install -q --disable-pip-version-check -c "$constraints" \
            -r "$venv/integration-requirements.txt" "paho-mqtt==$paho" $pins >&2 || return 1
    fi
    mkdir -p "$(dirname "$lock")"
    "$venv/bin/pip" freeze --disable-pip-version-check >"$lock" || return 1
    echo "lock $(sha256sum <"$lock" | cut -d' ' -f1)" >"$stamp"
    echo "test-homeassistant: resolved Home Assistant $version in $((SECONDS - started)) s; wrote $lock" >&2
    echo "$venv"
}

status=0
ran=0
summaries=()
# First every venv (they need the network), then the versions' test runs side by side, each
# on a loopback of its own (deploy/own-loopback.sh): a run mostly waits on Home Assistant,
# and in namespaces of their own their brokers and cores share no port.
runs=()
for entry in "${versions[@]}"; do
    read -r version minor paho device_discovery pins <<<"$entry"
    if [ ${#selected[@]} -gt 0 ] && [[ " ${selected[*]} " != *" $version "* ]]; then
        continue
    fi
    ran=$((ran + 1))
    prepared=0
    venv="$(prepare_venv "$version" "$minor" "$paho" "${pins:-}")" || prepared=$?
    if [ "$prepared" -ne 0 ]; then
        if [ "$ci" = "true" ] || [ "$prepared" -ne 2 ]; then
            echo "test-homeassistant: Home Assistant $version could not be installed" >&2
            summaries+=("Home Assistant $version: install failed")
            status=1
        else
            echo "test-homeassistant: skipping Home Assistant $version (no Python ${minor//,/ or }; CI=true makes this a failure)" >&2
            summaries+=("Home Assistant $version: skipped (no Python ${minor//,/ or })")
        fi
        continue
    fi
    if [ "$install_only" = true ]; then
        summaries+=("Home Assistant $version: installed in $venv")
        continue
    fi
    runs+=("$version $device_discovery $venv")
done

. deploy/own-loopback.sh
logs="$(mktemp -d /tmp/boardbridge-ha-test.XXXXXX)"
pids=()
for run in ${runs[@]+"${runs[@]}"}; do
    read -r version device_discovery venv <<<"$run"
    (
        started=$SECONDS
        code=0
        in_own_loopback env BOARDBRIDGE_BIN_DIR="$bin" BOARDBRIDGE_HA_VERSION="$version" \
            BOARDBRIDGE_HA_DEVICE_DISCOVERY="$device_discovery" PYTHONPYCACHEPREFIX="$venv/pycache" \
            "$venv/bin/python" -m pytest -p no:cacheprovider -rxXfE Tests/HomeAssistant \
            ${pytest_args[@]+"${pytest_args[@]}"} >"$logs/$version.log" 2>&1 || code=$?
        echo "$code $((SECONDS - started))" >"$logs/$version.status"
    ) &
    pids+=($!)
done
for pid in ${pids[@]+"${pids[@]}"}; do wait "$pid" || true; done
for run in ${runs[@]+"${runs[@]}"}; do
    read -r version device_discovery venv <<<"$run"
    echo "== Home Assistant $version (device_discovery: $device_discovery)" >&2
    cat "$logs/$version.log" >&2
    read -r code seconds <"$logs/$version.status" || { code=1; seconds=0; }
    line="$(grep -E '^=+ .*(passed|failed|error|xfailed|skipped).* in [0-9.]+s' "$logs/$version.log" | tail -1 \
        | sed -E 's/^=+ //; s/ =+$//' || true)"
    summaries+=("Home Assistant $version: ${line:-no pytest summary} (exit $code, $seconds s)")
    [ "$code" -eq 0 ] && [ -n "$line" ] || status=1
done
rm -rf "$logs"

[ "$ran" -gt 0 ] || { echo "test-homeassistant: no tested version matches ${selected[*]}" >&2; exit 64; }
for summary in "${summaries[@]}"; do
    echo "homeassistant: $summary"
done
exit "$status"
