#!/usr/bin/env bash
# BoardBridge demo: the bridge with simulated boards, end to end, on this machine only.
#
#   ./deploy/demo.sh              run until Ctrl-C
#   ./deploy/demo.sh --seconds 60 run for 60 seconds
#
# Installs what is missing, builds in release, then starts (all private, all stopped again):
#   - a private dbus-daemon (never the system bus),
#   - boardsim owning org.bluez on it, with four boards of four families on two adapters,
#   - a private mosquitto on a free loopback port,
#   - boardbridge with a demo config, and the hall view (boardbridge hall) of it,
# then starts round 1 of a broadcast (its pairings from deploy/demo-round1.csv, as the
# arbiter's "start round" does), has the boards play real games at a human pace and shows
# the live topics; the round's games.pgn is what a lichess relay would poll.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=0
pace=3
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="${2:?--seconds needs a number}"; shift 2 ;;
        --seconds=*) seconds="${1#*=}"; shift ;;
        --pace) pace="${2:?--pace needs seconds per move}"; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "demo.sh: unknown argument $1 (try --help)" >&2; exit 64 ;;
    esac
done

./deploy/install-deps.sh
. deploy/swift-toolchain.sh
require_swift demo.sh

echo "demo: building (release)…" >&2
swift build -c release --product boardbridge >&2
swift build -c release --product boardbridge-hall >&2
swift build -c release --product boardsim >&2
bin="$(swift build -c release --show-bin-path)"

work="$(mktemp -d /tmp/boardbridge-demo.XXXXXX)"
pids=()
cleanup() {
    trap - EXIT INT TERM
    # Stop in reverse order, each by its PID: the bridge first, so it publishes "offline".
    for (( i=${#pids[@]}-1; i>=0; i-- )); do
        kill -TERM "${pids[$i]}" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "${pids[$i]}" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "${pids[$i]}" 2>/dev/null || true
        wait "${pids[$i]}" 2>/dev/null || true
    done
    rm -rf "$work"
    echo "demo: stopped everything" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# 1. A private D-Bus.
cat > "$work/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$work/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
CONF
dbus-daemon --config-file="$work/bus.conf" --nofork >"$work/dbus.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [ -S "$work/bus" ] && break; sleep 0.1; done
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/bus"

# 2. boardsim: four boards of four families on two adapters.
"$bin/boardsim" --bus "$DBUS_SYSTEM_BUS_ADDRESS" \
    --adapter hci0 --adapter hci1 \
    --board 'family=chessnut,name=Chessnut Air,address=C0:FF:EE:00:00:01,adapter=hci0,rssi=-48' \
    --board 'family=chessup,name=ChessUp,address=C0:FF:EE:00:00:02,adapter=hci0,rssi=-55' \
    --board 'family=millennium,name=MILLENNIUM CHESS,address=C0:FF:EE:00:00:03,adapter=hci1,rssi=-60' \
    --board 'family=squareoff,name=Squareoff Pro,address=C0:FF:EE:00:00:04,adapter=hci1,rssi=-62' \
    --quiet >"$work/boardsim.log" 2>&1 &
pids+=($!)

# 3. A private mosquitto on a free loopback port.
port="$(free_port)"
hall_port="$(free_port)"
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$port" >"$work/mosquitto.conf"
[ "$(id -u)" -eq 0 ] && echo "user root" >>"$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do mosquitto_sub -p "$port" -t '$SYS/broker/version' -C 1 -W 1 >/dev/null 2>&1 && break; sleep 0.1; done

# 4. boardbridge with a demo config.
cat > "$work/config.yaml" <<CONF
mqtt:
  url: mqtt://127.0.0.1:$port
node: demo
state_directory: $work/state
bluetooth:
  adapters: [hci0, hci1]
homeassistant:
  enabled: true
hall:
  port: $hall_port
  arbiter_password: demo-arbiter
  broadcast:
    rounds:
      - round: "1"
        pairings_file: $PWD/deploy/demo-round1.csv
        event: BoardBridge Demo
        site: This machine
        time_control: "300+3"
reconnect:
  max_attempts: 10
  delays: [1, 2, 4]
boards:
  - id: board-1
    name: Board 1 (Chessnut Air)
    address: C0:FF:EE:00:00:01
    family: chessnut
    adapter: hci0
    time_control: "300+3"
  - id: board-2
    name: Board 2 (ChessUp)
    address: C0:FF:EE:00:00:02
    family: chessup
    adapter: hci0
  - id: board-3
    name: Board 3 (Millennium)
    address: C0:FF:EE:00:00:03
    family: millennium
    adapter: hci1
  - id: board-4
    name: Board 4 (Square Off)
    address: C0:FF:EE:00:00:04
    family: squareoff
    adapter: hci1
    orientation: white
CONF
"$bin/boardbridge" check-config --config "$work/config.yaml" >&2
"$bin/boardbridge" run --config "$work/config.yaml" >"$work/boardbridge.log" 2>&1 &
pids+=($!)
# The arbiter's hall view of the same broker (docs/hall.md).
"$bin/boardbridge" hall --config "$work/config.yaml" >"$work/hall.log" 2>&1 &
pids+=($!)

# 5. Once every board is online, the players start their games (real games, human pace).
echo "demo: waiting for the boards to connect…" >&2
for board in 1 2 3 4; do
    online=""
    for _ in $(seq 1 120); do
        state="$(mosquitto_sub -p "$port" -t "boardbridge/board-$board/availability" -C 1 -W 1 2>/dev/null || true)"
        case "$state" in *online*) online=yes; break ;; esac
        sleep 0.5
    done
    if [ -z "$online" ]; then
        echo "demo: board-$board did not come online; the bridge said:" >&2
        tail -20 "$work/boardbridge.log" >&2
        exit 1
    fi
done
# The arbiter starts round 1: every board gets its players and clock (new_game), as the hall
# view's "Start round 1" button does; the games begin once every board has its game.
hall_api() {
    python3 - "$@" <<'PY'
import base64, json, sys, time, urllib.request
base, what = sys.argv[1], sys.argv[2]
def get(path):
    return json.load(urllib.request.urlopen(base + path, timeout=2))
if what == "start":
    request = urllib.request.Request(base + "/api/broadcast/1/start", method="POST", data=b"", headers={
        "X-BoardBridge-Hall": "1", "Authorization": "Basic " + base64.b64encode(b"arbiter:demo-arbiter").decode()})
    print(json.load(urllib.request.urlopen(request, timeout=5))["sent"])
elif what == "started":
    boards = get("/api/boards")["boards"]
    print(sum(1 for b in boards if ((b.get("state") or {}).get("game") or {}).get("round") == "1"
              and ((b.get("state") or {}).get("game") or {}).get("white")))
elif what == "games":
    text = urllib.request.urlopen(base + "/broadcast/1/games.pgn", timeout=2).read().decode()
    print(text.count('[Round "1.'))
PY
}
sent=""
for _ in $(seq 1 20); do
    sent="$(hall_api "http://127.0.0.1:$hall_port" start 2>/dev/null || true)"
    [ "$sent" = 4 ] && break
    sleep 0.5
done
started=""
for _ in $(seq 1 60); do
    started="$(hall_api "http://127.0.0.1:$hall_port" started 2>/dev/null || true)"
    [ "$started" = 4 ] && break
    sleep 0.5
done
if [ "$sent" != 4 ] || [ "$started" != 4 ]; then
    echo "demo: round 1 did not start on the 4 boards (sent ${sent:-none}, started ${started:-none}); the hall said:" >&2
    tail -20 "$work/hall.log" >&2
    exit 1
fi
for address in C0:FF:EE:00:00:01 C0:FF:EE:00:00:02 C0:FF:EE:00:00:03 C0:FF:EE:00:00:04; do
    "$bin/boardsim" ctl --bus "$DBUS_SYSTEM_BUS_ADDRESS" autoplay "$address" "$pace" >/dev/null
done

# The hall view answers, and lists every board, before its address is given.
hall_boards=""
for _ in $(seq 1 60); do
    hall_boards="$(python3 -c 'import json, sys, urllib.request
print(len(json.load(urllib.request.urlopen(sys.argv[1], timeout=2))["boards"]))' \
        "http://127.0.0.1:$hall_port/api/boards" 2>/dev/null || true)"
    [ "$hall_boards" = 4 ] && break
    sleep 0.5
done
if [ "$hall_boards" != 4 ]; then
    echo "demo: the hall view did not list the 4 boards (${hall_boards:-no answer}); the hall said:" >&2
    tail -20 "$work/hall.log" >&2
    exit 1
fi
echo "demo: the hall view: http://127.0.0.1:$hall_port/ (open it in a browser; it lists the 4 boards; arbiter password demo-arbiter)" >&2
games="$(hall_api "http://127.0.0.1:$hall_port" games 2>/dev/null || true)"
if [ "$games" != 4 ]; then
    echo "demo: the broadcast did not serve round 1's 4 games (${games:-no answer}); the hall said:" >&2
    tail -20 "$work/hall.log" >&2
    exit 1
fi
echo "demo: the broadcast: http://127.0.0.1:$hall_port/broadcast/1/games.pgn (round 1 running, 4 games; what a lichess relay polls)" >&2
echo "demo: live topics (mosquitto_sub -v -t 'boardbridge/#' on port $port); Ctrl-C to stop" >&2
echo "demo: try, in another shell:  mosquitto_pub -p $port -t boardbridge/board-1/set -m '{\"leds\":{\"squares\":[\"e2\",\"e4\"]}}'" >&2
if [ "$seconds" -gt 0 ]; then
    timeout "$seconds" mosquitto_sub -p "$port" -v -t 'boardbridge/#' || true
else
    mosquitto_sub -p "$port" -v -t 'boardbridge/#' || true
fi
