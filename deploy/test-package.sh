#!/usr/bin/env bash
# Builds the Debian package and exercises it on this machine: lintian, dpkg -i,
# check-config as the service user, the user, the state directory, the unit, the conffile
# kept by dpkg -r and everything removed by dpkg --purge.
#
#   ./deploy/test-package.sh       (as root; it installs and purges the package, so run it
#                                   on a build or CI machine, not on a bridge host in use)
#
# CI (.ci/run) runs it on every submission.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "test-package: FAIL: $*" >&2; exit 1; }
checks=0
pass() { checks=$((checks + 1)); echo "test-package: ok: $*" >&2; }

[ "$(id -u)" -eq 0 ] || fail "needs root (it installs the package)"
if dpkg-query -W -f='${Status}' boardbridge 2>/dev/null | grep -q "install ok installed"; then
    [ "${CI:-}" = true ] || fail "boardbridge is installed on this machine already; not touching it"
fi
dpkg --purge boardbridge >/dev/null 2>&1 || true

out="$(mktemp -d /tmp/boardbridge-dist.XXXXXX)"
trap 'dpkg --purge boardbridge >/dev/null 2>&1 || true; rm -rf "$out"' EXIT
deb="$(./deploy/package.sh --out "$out" | tail -1)"
[ -f "$deb" ] || fail "package.sh wrote no package"
case "$(basename "$deb")" in boardbridge_*_"$(dpkg --print-architecture)".deb) ;; *) fail "name $(basename "$deb")" ;; esac
pass "built $(basename "$deb")"

# lintian: no tag at all, pedantic included (an allowed tag would be listed here with its reason).
tags="$(lintian --pedantic --display-experimental --info "$deb" 2>/dev/null || true)"
[ -z "$tags" ] || { echo "$tags" >&2; fail "lintian reported tags"; }
pass "lintian --pedantic: no tags"

dpkg -i "$deb" >/dev/null || fail "dpkg -i"
pass "dpkg -i"
[ -x /usr/bin/boardbridge ] || fail "no /usr/bin/boardbridge"
/usr/bin/boardbridge --version | grep -q '^boardbridge ' || fail "boardbridge --version"
[ -x /usr/libexec/boardbridge/boardbridge-hall ] || fail "no /usr/libexec/boardbridge/boardbridge-hall"
# The daemon does not link the hall's libraries (memory goal); the hall does. ldd's output is
# taken whole first: `ldd … | grep -q` under pipefail fails when grep has its match and
# exits while the loader still writes (SIGPIPE, status 141).
daemon_libraries="$(ldd /usr/bin/boardbridge)"
hall_libraries="$(ldd /usr/libexec/boardbridge/boardbridge-hall)"
! grep -Eq 'libmicrohttpd|libcurl|libgnutls' <<<"$daemon_libraries" || fail "boardbridge links the hall's libraries"
grep -q libmicrohttpd <<<"$hall_libraries" || fail "boardbridge-hall lacks libmicrohttpd"
id -nG boardbridge | tr ' ' '\n' | grep -qx bluetooth || fail "the boardbridge user is not in the bluetooth group"
[ "$(stat -c '%U:%G %a' /var/lib/boardbridge)" = "boardbridge:boardbridge 750" ] \
    || fail "/var/lib/boardbridge is $(stat -c '%U:%G %a' /var/lib/boardbridge)"
[ "$(stat -c '%U:%G %a' /etc/boardbridge/config.yaml)" = "root:boardbridge 640" ] \
    || fail "/etc/boardbridge/config.yaml is $(stat -c '%U:%G %a' /etc/boardbridge/config.yaml)"
grep -qx '/etc/boardbridge/config.yaml' /var/lib/dpkg/info/boardbridge.conffiles || fail "config.yaml is no conffile"
grep -q '^ExecStart=/usr/bin/boardbridge run --config /etc/boardbridge/config.yaml$' \
    /lib/systemd/system/boardbridge.service || fail "the unit's ExecStart"
grep -q '^ExecStart=/usr/bin/boardbridge hall --config /etc/boardbridge/config.yaml$' \
    /lib/systemd/system/boardbridge-hall.service || fail "the hall unit's ExecStart"
[ -L /etc/systemd/system/multi-user.target.wants/boardbridge.service ] || fail "the unit is not enabled"
[ -f /usr/share/doc/boardbridge/examples/mosquitto/boardbridge.conf ] \
    && [ -f /usr/share/doc/boardbridge/examples/mosquitto/boardbridge.acl ] || fail "mosquitto examples"
man -w boardbridge >/dev/null 2>&1 || [ -f /usr/share/man/man8/boardbridge.8.gz ] || fail "man page"
pass "files, user, permissions, conffile, unit enabled"

# The service user can read its configuration and the shipped configuration is valid.
runuser -u boardbridge -- /usr/bin/boardbridge check-config --config /etc/boardbridge/config.yaml >/dev/null \
    || fail "check-config as the boardbridge user"
if runuser -u nobody -- cat /etc/boardbridge/config.yaml >/dev/null 2>&1; then
    fail "config.yaml is readable by other users"
fi
pass "check-config as the service user; config unreadable by others"

# `boardbridge hall` reaches the installed hall executable: exit 78 and the hall's own
# configuration error (70 and "not installed" when boardbridge cannot find it).
set +e
hall_error="$(runuser -u boardbridge -- /usr/bin/boardbridge hall --config /nonexistent.yaml 2>&1 >/dev/null)"
hall_status=$?
set -e
[ "$hall_status" -eq 78 ] || { echo "$hall_error" >&2; fail "boardbridge hall exited $hall_status, not 78"; }
pass "boardbridge hall execs /usr/libexec/boardbridge/boardbridge-hall"

# dpkg -r keeps the (edited) configuration and the games; reinstalling keeps the edit.
echo "# edited by the operator" >>/etc/boardbridge/config.yaml
echo '{}' >/var/lib/boardbridge/game.json
dpkg -r boardbridge >/dev/null || fail "dpkg -r"
[ ! -e /usr/bin/boardbridge ] && [ ! -e /usr/libexec/boardbridge ] || fail "dpkg -r left a binary"
grep -q "edited by the operator" /etc/boardbridge/config.yaml || fail "dpkg -r lost the edited configuration"
pass "dpkg -r: binary gone, configuration kept"
dpkg -i "$deb" >/dev/null || fail "dpkg -i again"
grep -q "edited by the operator" /etc/boardbridge/config.yaml || fail "reinstall replaced the edited configuration"
[ -f /var/lib/boardbridge/game.json ] || fail "reinstall lost the state directory"
pass "reinstall keeps the configuration and the saved games"

dpkg --purge boardbridge >/dev/null || fail "dpkg --purge"
for path in /usr/bin/boardbridge /usr/libexec/boardbridge /etc/boardbridge /var/lib/boardbridge /lib/systemd/system/boardbridge.service \
    /etc/systemd/system/multi-user.target.wants/boardbridge.service /usr/share/doc/boardbridge; do
    [ ! -e "$path" ] || fail "dpkg --purge left $path"
done
pass "dpkg --purge: nothing left"

echo "package: $checks passed, 0 failed"
