#!/usr/bin/env bash
# Builds the Debian package of the bridge from the release build:
#
#   ./deploy/package.sh                 writes dist/boardbridge_<version>_<arch>.deb
#   ./deploy/package.sh --out DIR       writes it into DIR
#
# The package holds /usr/bin/boardbridge, /usr/libexec/boardbridge/boardbridge-hall (what
# `boardbridge hall` execs: the only binary linking libmicrohttpd and libcurl), the man page
# (from --help), the systemd units,
# /etc/boardbridge/config.yaml as a conffile, /var/lib/boardbridge, and the README, the MQTT
# contract and the mosquitto and Home Assistant examples under /usr/share/doc/boardbridge/.
# Its maintainer scripts create the "boardbridge" system user in the "bluetooth" group.
# The packaging itself is in deploy/debian/ (debhelper); lintian checks the result.
set -euo pipefail
cd "$(dirname "$0")/.."

out="dist"
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="${2:?--out needs a folder}"; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "package.sh: unknown argument $1 (try --help)" >&2; exit 64 ;;
    esac
done

./deploy/install-deps.sh --packaging
. deploy/swift-toolchain.sh
require_swift package.sh

echo "package: building (release)…" >&2
swift build -c release --product boardbridge >&2
swift build -c release --product boardbridge-hall >&2
binary="$(swift build -c release --show-bin-path)/boardbridge"
hall_binary="$(swift build -c release --show-bin-path)/boardbridge-hall"

# The version is the binary's own; the package changelog must agree with it.
version="$("$binary" --version | awk '{print $2}')"
changelog_version="$(dpkg-parsechangelog -l deploy/debian/changelog -S Version)"
if [ "$version" != "$changelog_version" ]; then
    echo "package.sh: boardbridge --version says $version, deploy/debian/changelog says $changelog_version" >&2
    exit 1
fi

stage="$(mktemp -d /tmp/boardbridge-package.XXXXXX)"
trap 'rm -rf "$stage"' EXIT
source="$stage/boardbridge-$version"
mkdir -p "$source/files"
cp -r deploy/debian "$source/debian"
# The unit as the package installs it (dh_installsystemd takes debian/<package>.service).
cp deploy/systemd/boardbridge.service "$source/debian/boardbridge.service"
cp deploy/systemd/boardbridge-hall.service "$source/debian/boardbridge.boardbridge-hall.service"
install -m 0755 "$binary" "$source/files/boardbridge"
install -m 0755 "$hall_binary" "$source/files/boardbridge-hall"
cp config.yaml README.md docs/mqtt-contract.md docs/hall.md "$source/files/"
cp -r deploy/mosquitto deploy/homeassistant "$source/files/"
help2man --no-info --section 8 --name "smart chess boards (Bluetooth LE, through BlueZ) to MQTT" \
    --version-string "$version" "$source/files/boardbridge" >"$source/files/boardbridge.8"

echo "package: dpkg-buildpackage…" >&2
(cd "$source" && dpkg-buildpackage --build=binary --no-sign >"$stage/build.log" 2>&1) || {
    tail -40 "$stage/build.log" >&2
    exit 1
}

arch="$(dpkg --print-architecture)"
deb="boardbridge_${version}_${arch}.deb"
mkdir -p "$out"
cp "$stage/$deb" "$out/$deb"
echo "package: $out/$deb" >&2
echo "$out/$deb"
