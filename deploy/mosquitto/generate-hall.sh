#!/usr/bin/env bash
# Generates the mosquitto configurations of a multi-room hall from the templates in
# deploy/mosquitto/hall/: one central broker and one broker per room, each room bridged
# to the central one (QoS 1 both ways, persistent sessions, try_private, notifications).
#
#   deploy/mosquitto/generate-hall.sh --out DIR [--base boardbridge] [--discovery homeassistant]
#       [--central-listen 0.0.0.0:1883] [--data /var/lib/mosquitto] [--keepalive 15]
#       [--auth FILE] [--remote-auth FILE]
#       --room 'name=r1,central=central.hall:1883,listen=0.0.0.0:1883,nodes=r1-host,boards=r1-b01 r1-b02'
#       --room ...
#
# Writes DIR/central.conf and DIR/room-<name>.conf. Per room: `central` is the central
# broker as this room reaches it, `nodes` the `node` names of its bridge hosts and
# `boards` its board ids (space- or semicolon-separated). `--auth FILE` inserts FILE's
# lines (password_file, acl_file, TLS listener…) into every broker; `--remote-auth FILE`
# into every connection block (remote_username, bridge_cafile…), with @ROOM@ replaced.
# Without --auth the listeners allow anonymous clients: bind them to a trusted network.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)/hall"
out="" base=boardbridge discovery=homeassistant central_listen=0.0.0.0:1883 data=/var/lib/mosquitto
keepalive=15 auth="" remote_auth="" rooms=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --base) base="$2"; shift 2 ;;
        --discovery) discovery="$2"; shift 2 ;;
        --central-listen) central_listen="$2"; shift 2 ;;
        --data) data="$2"; shift 2 ;;
        --keepalive) keepalive="$2"; shift 2 ;;
        --auth) auth="$(cat "$2")"; shift 2 ;;
        --remote-auth) remote_auth="$(cat "$2")"; shift 2 ;;
        --room) rooms+=("$2"); shift 2 ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "generate-hall.sh: unknown argument $1 (try --help)" >&2; exit 64 ;;
    esac
done
[ -n "$out" ] || { echo "generate-hall.sh: --out DIR is required" >&2; exit 64; }
[ "${#rooms[@]}" -gt 0 ] || { echo "generate-hall.sh: at least one --room" >&2; exit 64; }
[ -n "$auth" ] || auth="allow_anonymous true"
mkdir -p "$out"

# render TEMPLATE OUTPUT KEY=VALUE...: replaces @KEY@ by VALUE (VALUE may span lines).
render() {
    local template="$1" output="$2"; shift 2
    python3 - "$template" "$output" "$@" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for pair in sys.argv[3:]:
    key, _, value = pair.partition("=")
    text = text.replace("@" + key + "@", value)
left = re.findall(r"@[A-Z_]+@", text)
if left:
    sys.exit(f"generate-hall.sh: unreplaced placeholder {left[0]} in {sys.argv[2]}")
open(sys.argv[2], "w").write(text)
PY
}

render "$here/central.conf.in" "$out/central.conf" \
    "LISTEN_PORT=${central_listen##*:}" "LISTEN_ADDRESS=${central_listen%:*}" "AUTH=$auth" "DATA=$data/central"
echo "$out/central.conf"

for spec in "${rooms[@]}"; do
    name="" central="" listen=0.0.0.0:1883 nodes="" boards=""
    IFS=',' read -ra fields <<<"$spec"
    for field in "${fields[@]}"; do
        case "$field" in
            name=*) name="${field#name=}" ;;
            central=*) central="${field#central=}" ;;
            listen=*) listen="${field#listen=}" ;;
            nodes=*) nodes="${field#nodes=}" ;;
            boards=*) boards="${field#boards=}" ;;
            *) echo "generate-hall.sh: unknown room key in '$field'" >&2; exit 64 ;;
        esac
    done
    [[ "$name" =~ ^[A-Za-z0-9_-]+$ ]] || { echo "generate-hall.sh: room name '$name' (A-Z a-z 0-9 _ -)" >&2; exit 64; }
    [ -n "$central" ] || { echo "generate-hall.sh: room $name needs central=HOST:PORT" >&2; exit 64; }
    requests="" commands=""
    for node in ${nodes//;/ }; do requests+="topic $base/bridge/$node/request/# in 1"$'\n'; done
    for board in ${boards//;/ }; do
        commands+="topic $base/$board/set in 1"$'\n'"topic $base/$board/set/+ in 1"$'\n'
    done
    render "$here/room.conf.in" "$out/room-$name.conf" \
        "ROOM=$name" "LISTEN_PORT=${listen##*:}" "LISTEN_ADDRESS=${listen%:*}" "AUTH=$auth" \
        "DATA=$data/room-$name" "CENTRAL=$central" "REMOTE_AUTH=${remote_auth//@ROOM@/$name}" \
        "KEEPALIVE=$keepalive" "NOTIFY_PREFIX=$base-brokers" "BASE=$base" "DISCOVERY=$discovery" \
        "REQUEST_TOPICS=${requests%$'\n'}" "COMMAND_TOPICS=${commands%$'\n'}"
    echo "$out/room-$name.conf"
done
