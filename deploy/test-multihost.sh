#!/usr/bin/env bash
# A tournament over several hosts, on real processes in Linux network namespaces.
#
#   ./deploy/test-multihost.sh                  quick: a 20 s partition
#   ./deploy/test-multihost.sh --full           the issue's 60 s partition
#   ./deploy/test-multihost.sh --partition 45   any length
#   ./deploy/test-multihost.sh --keep           leave the work folder (logs) behind
#   ./deploy/test-multihost.sh --load-boards 512 --load-plies 10
#                                               the load phase: simulated boards in all (0: none)
#                                               and plies each (512 and 10)
#
# Creates a "central" namespace and three "room" namespaces r1..r3, each room joined to the
# central one by a veth pair (10.213.<room>.1 central side, .2 room side; addresses exist
# only in these namespaces). Each room runs its own private dbus-daemon, boardsim (two
# boards: Chessnut Air, Millennium), mosquitto and boardbridge (node r<room>); its broker
# is bridged to the central mosquitto with the configurations deploy/mosquitto/generate-hall.sh
# writes. A recording subscriber (deploy/multihost.py, paho-mqtt and prometheus-client pinned in
# a venv under ~/.cache/boardbridge) and the hall service sit on the central broker; the hall's
# /metrics must list every board of every room, and a SIGKILLed room's node as down, whose
# boards' commands the hall refuses ("node r3 offline"). Then, with moves played throughout:
# a partition of r1's link, a restart of the central broker, a restart of r2's broker, a
# SIGKILL of r3's bridge (last will centrally, then a restart), commands and requests sent
# centrally, and two misconfigured bridges (a board id and a node used twice), and finally a
# load of 512 simulated boards published straight to the room brokers. It checks
# that every move of every board arrived centrally exactly once (duplicates are counted,
# then dropped) and in order, and prints the counts.
#
# Namespaces need root (or CAP_SYS_ADMIN): without, the test skips loudly (exit 0), and
# fails under CI=true. Binaries: $BOARDBRIDGE_BIN_DIR, else the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

partition=20 keep=false load_boards=512 load_plies=10
while [ $# -gt 0 ]; do
    case "$1" in
        --full) partition=60; shift ;;
        --partition) partition="${2:?--partition needs seconds}"; shift 2 ;;
        --keep) keep=true; shift ;;
        --load-boards) load_boards="${2:?--load-boards needs a number}"; shift 2 ;;
        --load-plies) load_plies="${2:?--load-plies needs a number}"; shift 2 ;;
        -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
        *) echo "test-multihost.sh: unknown argument $1 (try --help)" >&2; exit 64 ;;
    esac
done
ci="${CI:-false}"
say() { echo "multihost: $*" >&2; }
. deploy/netns-topology.sh

# --- can this machine do it? ---
for tool in ip mosquitto mosquitto_pub dbus-daemon python3; do
    command -v "$tool" >/dev/null || skip "$tool is not installed (deploy/install-deps.sh)"
done
require_namespaces bbmhprobe

# --- binaries and the pinned subscriber ---
. deploy/release-bin.sh
bin="$(release_bin_dir test-multihost.sh)"
. deploy/pinned-venv.sh
venv="$(pinned_venv multihost deploy/multihost-requirements.txt)" || skip "cannot install deploy/multihost-requirements.txt"
py="$venv/bin/python"
helper="$root/deploy/multihost.py"

# --- the topology, removed again whatever happens ---
id="$(( $$ % 100000 ))"
central_ns="bbmh${id}c"
rooms=(1 2 3)
work="$(mktemp -d /tmp/boardbridge-multihost.XXXXXX)"
declare -A pid=()
namespaces=()
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    stop_pids "${pid[@]}"
    remove_topology "$status" "$work"/*.log
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for() { "$py" "$helper" wait "$work/central.jsonl" "$@"; }
wait_broker() { # wait_broker NAMESPACE
    for _ in $(seq 1 100); do
        ip netns exec "$1" mosquitto_pub -h 127.0.0.1 -p 1883 -t probe -m x -q 1 2>/dev/null && return 0
        sleep 0.1
    done
    say "the broker in $1 did not come up"; return 1
}
room_ns() { echo "bbmh${id}r$1"; }

ip netns add "$central_ns"; namespaces+=("$central_ns")
ip -n "$central_ns" link set lo up
room_specs=()
for r in "${rooms[@]}"; do
    ns="$(room_ns "$r")"
    ip netns add "$ns"; namespaces+=("$ns")
    ip -n "$ns" link set lo up
    ip link add "bm${id}c$r" netns "$central_ns" type veth peer name "bm${id}r$r" netns "$ns"
    ip -n "$central_ns" addr add "10.213.$r.1/24" dev "bm${id}c$r"
    ip -n "$ns" addr add "10.213.$r.2/24" dev "bm${id}r$r"
    ip -n "$central_ns" link set "bm${id}c$r" up
    ip -n "$ns" link set "bm${id}r$r" up
    room_specs+=(--room "name=r$r,central=10.213.$r.1:1883,listen=127.0.0.1:1883,nodes=r$r,boards=r$r-b1 r$r-b2")
done
say "namespaces: $central_ns and ${#rooms[@]} rooms, work folder $work"

# Broker configurations: the shipped generator, plus what only a test needs.
deploy/mosquitto/generate-hall.sh --out "$work/conf" --data "$work/data" --central-listen 0.0.0.0:1883 \
    --keepalive 5 "${room_specs[@]}" >/dev/null
for conf in "$work"/conf/*.conf; do
    [ "$(id -u)" -eq 0 ] && echo "user root" >>"$conf"
    mkdir -p "$work/data/$(basename "$conf" .conf)"
done

start central-broker "$central_ns" mosquitto -c "$work/conf/central.conf"
wait_broker "$central_ns"
start recorder "$central_ns" "$py" "$helper" record 1883 "$work/central.jsonl"
# The hall service on the central host: its /metrics and its arbiter commands are checked.
hall_port=8080 hall_password=multihost-arbiter
printf 'mqtt:\n  url: mqtt://127.0.0.1:1883\nhall:\n  address: 127.0.0.1\n  port: %s\n  arbiter_password: %s\n  audit_file: %s\n' \
    "$hall_port" "$hall_password" "$work/hall-audit.jsonl" >"$work/hall.yaml"
start hall "$central_ns" "$bin/boardbridge" hall --config "$work/hall.yaml"
hall_metrics() { ip netns exec "$central_ns" "$py" "$helper" hall-metrics "$hall_port" "$@"; }
hall_command() { ip netns exec "$central_ns" "$py" "$helper" hall-command "$hall_port" "$hall_password" "$@"; }

for r in "${rooms[@]}"; do
    ns="$(room_ns "$r")"
    cat >"$work/bus-r$r.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=$work/bus-r$r</listen><auth>EXTERNAL</auth>
  <policy context="default"><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy>
</busconfig>
CONF
    start "dbus-r$r" "$ns" dbus-daemon --config-file="$work/bus-r$r.conf" --nofork
    for _ in $(seq 1 50); do [ -S "$work/bus-r$r" ] && break; sleep 0.1; done
    start "boardsim-r$r" "$ns" "$bin/boardsim" --bus "unix:path=$work/bus-r$r" --adapter hci0 \
        --board "id=r$r-b1,family=chessnut,name=Chessnut Air,address=C0:FF:EE:0$r:00:01" \
        --board "id=r$r-b2,family=millennium,name=MILLENNIUM CHESS,address=C0:FF:EE:0$r:00:02" --quiet
    start "broker-r$r" "$ns" mosquitto -c "$work/conf/room-r$r.conf"
    wait_broker "$ns"
    cat >"$work/bridge-r$r.yaml" <<CONF
mqtt:
  url: mqtt://127.0.0.1:1883
  keepalive: 5
node: r$r
state_directory: $work/state-r$r
bluetooth:
  adapters: [hci0]
homeassistant:
  enabled: true
  status_topic: homeassistant-central/status
health:
  interval: 2
reconnect:
  max_attempts: 0
  delays: [1, 2]
boards:
  - id: r$r-b1
    address: C0:FF:EE:0$r:00:01
    family: chessnut
  - id: r$r-b2
    address: C0:FF:EE:0$r:00:02
    family: millennium
CONF
    start "bridge-r$r" "$ns" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/bus-r$r" \
        "$bin/boardbridge" run --config "$work/bridge-r$r.yaml"
done

boards=()
for r in "${rooms[@]}"; do boards+=("r$r-b1" "r$r-b2"); done
for r in "${rooms[@]}"; do wait_for 60 state "boardbridge/bridge/r$r/state" online; done
for board in "${boards[@]}"; do wait_for 90 state "boardbridge/$board/availability" online; done
say "all ${#boards[@]} boards of ${#rooms[@]} rooms online on the central broker"
node_boards=()
for r in "${rooms[@]}"; do node_boards+=("r$r:r$r-b1" "r$r:r$r-b2"); done
hall_metrics 60 "$(IFS=,; echo "${rooms[*]/#/r}")" - "$(IFS=,; echo "${node_boards[*]}")"
say "the central hall's /metrics lists every board of every room (their health reports, bridged)"

# The Opera Game (Morphy, Paris 1858), 33 plies; each phase plays the next few on every board.
game=(e2e4 e7e5 g1f3 d7d6 d2d4 c8g4 d4e5 g4f3 d1f3 d6e5 f1c4 g8f6 f3b3 d8e7 b1c3 c7c6 c1g5 b7b5
    c3b5 c6b5 c4b5 b8d7 e1c1 a8d8 d1d7 d8d7 h1d1 e7e6 b5d7 f6d7 b3b8 d7b8 d1d8)
played=0
# play PLIES ROOM...: the next PLIES plies on both boards of each ROOM, all at once.
play() {
    local count="$1" r board players=(); shift
    local moves=("${game[@]:$played:$count}")
    for r in "$@"; do
        for board in "r$r-b1" "r$r-b2"; do
            ip netns exec "$(room_ns "$r")" "$bin/boardsim" ctl --bus "unix:path=$work/bus-r$r" \
                play "$board" "${moves[@]}" --pace 0.3 >>"$work/ctl.log" 2>&1 &
            players+=($!)
        done
    done
    for p in "${players[@]}"; do wait "$p" || { say "boardsim ctl play failed"; return 1; }; done
}
arrived() { # arrived PLIES ROOM...: every board of ROOM has PLIES distinct moves centrally
    local plies="$1" r; shift
    for r in "$@"; do
        wait_for 60 moves "r$r-b1" "$plies"
        wait_for 60 moves "r$r-b2" "$plies"
    done
}
count() { "$py" "$helper" moves "$work/central.jsonl" "$1"; }

# 1. Normal play.
play 4 "${rooms[@]}"; played=4
arrived 4 "${rooms[@]}"
say "phase 1, normal play: 4 plies on every board arrived"

# 2. A partition of r1's link to the central broker.
ip -n "$central_ns" link set "bm${id}c1" down
partitioned_at=$SECONDS
play 4 "${rooms[@]}"; played=8
arrived 8 2 3
sleep $(( partition - (SECONDS - partitioned_at) > 0 ? partition - (SECONDS - partitioned_at) : 0 ))
held="$(count r1-b1)/$(count r1-b2)"
[ "$held" = "4/4" ] || { say "r1's moves crossed the partition ($held distinct moves of 8)"; exit 1; }
ip -n "$central_ns" link set "bm${id}c1" up
healed_at=$SECONDS
arrived 8 1
say "phase 2, ${partition} s partition of r1: r1's boards stood at $held moves centrally during it," \
    "all 8 arrived $((SECONDS - healed_at)) s after healing; r2 and r3 unaffected"

# 3. A restart of the central broker (its persistence keeps the recorder's session).
stop central-broker
play 4 "${rooms[@]}"; played=12
start central-broker "$central_ns" mosquitto -c "$work/conf/central.conf"
wait_broker "$central_ns"
arrived 12 "${rooms[@]}"
say "phase 3, central broker restarted: the 4 plies played while it was down arrived on every board"

# 4. A restart of r2's broker, moves played while it is down.
stop broker-r2
play 4 "${rooms[@]}"; played=16
start broker-r2 "$(room_ns 2)" mosquitto -c "$work/conf/room-r2.conf"
wait_broker "$(room_ns 2)"
arrived 16 "${rooms[@]}"
say "phase 4, r2's broker restarted: the 4 plies r2 played while it was down arrived"

# 5. SIGKILL of r3's bridge: its last will reaches the central broker, then it comes back.
stop bridge-r3 KILL
wait_for 30 state boardbridge/bridge/r3/state offline
hall_metrics 30 r1,r2 r3 "r1:r1-b1,r2:r2-b1"
hall_command r3-b1 503 "node r3 offline"
# A command another client sends centrally to r3's board: the hall answers it (r3 keeps no session).
ip netns exec "$central_ns" mosquitto_pub -h 127.0.0.1 -q 1 -t boardbridge/r3-b2/set \
    -m '{"leds":["e2"],"transaction":"leds-r3-down"}'
wait_for 30 response boardbridge/r3-b2/response leds-r3-down
"$py" - "$work/central.jsonl" <<'PY'
import json, sys
sys.path.insert(0, "deploy")
import multihost
answers = [json.loads(m["payload"]) for m in multihost.messages(sys.argv[1])
           if m["topic"] == "boardbridge/r3-b2/response" and "leds-r3-down" in m["payload"]]
assert len(answers) == 1 and answers[0]["status"] == "error" and "node r3 offline" in answers[0]["error"], answers
print(f"multihost: a command sent centrally to r3-b2 while r3 is down: answered once, {answers[0]['error']!r}",
      file=sys.stderr)
PY
"$py" - "$work/central.jsonl" <<'PY'
import json, sys
sys.path.insert(0, "deploy")
import multihost
# Every Home Assistant entity of r3's boards needs the bridge state too (availability_mode all).
configs = [json.loads(m["payload"]) for m in multihost.messages(sys.argv[1])
           if m["topic"].startswith("homeassistant/sensor/") and "r3-b" in m["topic"] and m["payload"]]
assert configs, "no Home Assistant discovery for r3's boards on the central broker"
for config in configs:
    topics = [a["topic"] for a in config.get("availability", [])]
    assert "boardbridge/bridge/r3/state" in topics, (config.get("unique_id"), topics)
print(f"multihost: r3's {len(configs)} board sensors depend on boardbridge/bridge/r3/state (now offline)", file=sys.stderr)
PY
start bridge-r3 "$(room_ns 3)" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/bus-r3" \
    "$bin/boardbridge" run --config "$work/bridge-r3.yaml"
wait_for 60 state boardbridge/bridge/r3/state online
for board in r3-b1 r3-b2; do wait_for 90 state "boardbridge/$board/availability" online; done
play 4 "${rooms[@]}"; played=20
arrived 20 "${rooms[@]}"
say "phase 5, r3's bridge SIGKILLed: bridge/r3/state went offline centrally (last will), the game resumed after the restart"

# 6. Commands and requests on the central broker reach the right room and are answered.
for r in "${rooms[@]}"; do
    ip netns exec "$central_ns" mosquitto_pub -h 127.0.0.1 -q 1 -t "boardbridge/r$r-b2/set" \
        -m "{\"leds\":[\"e2\",\"e4\"],\"transaction\":\"leds-r$r\"}"
    ip netns exec "$central_ns" mosquitto_pub -h 127.0.0.1 -q 1 -t "boardbridge/bridge/r$r/request/info" \
        -m "{\"transaction\":\"info-r$r\"}"
done
ip netns exec "$central_ns" mosquitto_pub -h 127.0.0.1 -q 1 -t homeassistant/status -m online
for r in "${rooms[@]}"; do
    wait_for 30 response "boardbridge/r$r-b2/response" "leds-r$r"
    wait_for 30 response "boardbridge/bridge/r$r/response/info" "info-r$r"
done
sleep 1
"$py" - "$work/central.jsonl" "${rooms[@]}" <<'PY'
import json, sys
sys.path.insert(0, "deploy")
import multihost
log, rooms = sys.argv[1], sys.argv[2:]
responses = [(m["topic"], json.loads(m["payload"])) for m in multihost.messages(log) if "/response" in m["topic"]]
for r in rooms:
    leds = [p for t, p in responses if p.get("transaction") == f"leds-r{r}"]
    info = [p for t, p in responses if p.get("transaction") == f"info-r{r}"]
    assert len(leds) == 1 and leds[0]["status"] == "ok", (r, leds)
    assert len(info) == 1 and info[0]["data"]["node"] == f"r{r}", (r, info)
print(f"multihost: commands sent centrally: {len(rooms)} leds commands and {len(rooms)} info requests, "
      f"each answered once, by the owning room", file=sys.stderr)
PY
for r in "${rooms[@]}"; do
    for _ in $(seq 1 50); do grep -q "Home Assistant is online" "$work/bridge-r$r.log" && break; sleep 0.2; done
    grep -q "Home Assistant is online" "$work/bridge-r$r.log" || { say "r$r missed Home Assistant's status"; exit 1; }
done
say "Home Assistant's online status on the central broker reached every room's bridge"
# 7. Every move of every board, exactly once and in order.
played_moves="$(IFS=,; echo "${game[*]:0:$played}")"
"$py" "$helper" verify "$work/central.jsonl" "$played" "$played_moves" "${boards[@]}"

# 8. Misconfigured bridges are detected: r1's board id on node r2x, and node r1 twice.
rogue() { # rogue NAME NODE BOARD ADDRESS
    cat >"$work/$1.yaml" <<CONF
mqtt:
  url: mqtt://127.0.0.1:1883
  client_id: $1
node: $2
state_directory: $work/state-$1
bluetooth:
  adapters: [hci0]
boards:
  - id: $3
    address: $4
    family: chessnut
CONF
    start "$1" "$(room_ns 2)" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/bus-r2" \
        "$bin/boardbridge" run --config "$work/$1.yaml"
}
rogue rogue-board r2x r1-b1 C0:FF:EE:99:00:01
wait_for 30 problem r2x duplicate_board r1
wait_for 30 problem r1 duplicate_board r2x
grep -q "conflict with another bridge" "$work/bridge-r1.log" || { say "r1 logged no conflict"; exit 1; }
say "phase 8a, board r1-b1 also on node r2x: both bridges report duplicate_board in their info (and log it)"
stop rogue-board
ip netns exec "$central_ns" mosquitto_pub -h 127.0.0.1 -q 1 -r -n -t boardbridge/bridge/r2x/info
wait_for 30 no-problem r1 duplicate_board
grep -q "conflict with another bridge resolved" "$work/bridge-r1.log" || { say "r1 logged no resolution"; exit 1; }
say "phase 8b, r2x's info cleared: r1's info lists the problem no more (and r1 logged it resolved)"
rogue rogue-node r1 r1-b9 C0:FF:EE:99:00:09
wait_for 30 reporters r1 duplicate_node 2
say "phase 8c, a second bridge as node r1 (in room r2): both instances of r1 report duplicate_node"
for r in 2 3; do
    if grep -q "conflict with another bridge" "$work/bridge-r$r.log"; then
        say "r$r reported a conflict it does not have (r3 after its restart: its predecessor's info)"; exit 1
    fi
done
say "phase 8d, no false conflicts: r2 and r3 (restarted after a SIGKILL) reported none"
stop rogue-node
# 9. Load: $load_boards simulated boards in all (spread over the rooms), $load_plies plies each; per
# ply a move, the retained state and the retained PGN, published straight to the room brokers.
if [ "$load_boards" -gt 0 ]; then
    central_pid="${pid[central-broker]}"
    cpu_ticks() { awk '{print $14 + $15}' "/proc/$central_pid/stat"; }
    per_room=$(( (load_boards + ${#rooms[@]} - 1) / ${#rooms[@]} ))
    ticks_before="$(cpu_ticks)"
    load_started="$(date +%s.%N)"
    publishers=()
    for r in "${rooms[@]}"; do
        ip netns exec "$(room_ns "$r")" "$py" "$helper" publish 1883 "r$r" "$per_room" "$load_plies" &
        publishers+=($!)
    done
    for p in "${publishers[@]}"; do wait "$p" || { say "a load publisher failed"; exit 1; }; done
    load_boards_all=()
    for r in "${rooms[@]}"; do for b in $(seq 1 "$per_room"); do load_boards_all+=("load-r$r-b$b"); done; done
    wait_for 180 all-moves "$load_plies" "${load_boards_all[@]}"
    load_ended="$(date +%s.%N)"
    ticks="$(( $(cpu_ticks) - ticks_before ))"
    rss="$(awk '/VmRSS/ {print $2}' "/proc/$central_pid/status")"
    "$py" "$helper" verify "$work/central.jsonl" "$load_plies" - "${load_boards_all[@]}" | tail -1
    n=$(( ${#load_boards_all[@]} * load_plies * 3 ))
    awk -v n="$n" -v boards="${#load_boards_all[@]}" -v s="$(awk -v a="$load_started" -v b="$load_ended" 'BEGIN {print b - a}')" \
        -v cpu="$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN {print t / hz}')" -v rss="$rss" 'BEGIN {
        printf "multihost: load: %d boards, %d messages (move, retained state, retained PGN per ply) in %.1f s = %.0f messages/s rooms to central;", boards, n, s, n / s
        printf " central mosquitto %.2f s CPU (%.0f us per message), RSS %d kB with their retained topics\n", cpu, cpu * 1e6 / n, rss }' >&2
fi
say "PASSED: ${#rooms[@]} rooms, ${#boards[@]} boards, $played plies each, partition ${partition} s, in $SECONDS s"
