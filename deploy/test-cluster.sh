#!/usr/bin/env bash
# The multi-host recipe on a clustered broker: two ejabberd nodes (mod_mqtt) in one cluster.
#
#   ./deploy/test-cluster.sh          the whole test (about a minute)
#   ./deploy/test-cluster.sh --keep   leave the work folder (logs) behind
#
# Two network namespaces a and b, joined by a veth pair (10.214.0.1 and 10.214.0.2, only
# inside them). Each runs its own epmd and an ejabberd node (deploy/ejabberd/ejabberd.yml,
# the same Erlang cookie); node b joins node a's cluster (ejabberdctl join_cluster). First
# deploy/cluster.py probes what the cluster does across nodes (routing, retained messages,
# persistent sessions, last will). Then each namespace is a room: its own dbus-daemon,
# boardsim (a Chessnut Air and a Millennium) and boardbridge (node r1 on node a, r2 on node
# b, both logging in with a password). The recording subscriber (deploy/multihost.py) sits
# on node b, the hall service on node a, so each sees one room's traffic across the
# cluster. It checks: every move of every board reaches both exactly once and in order;
# commands published on one node reach the other node's bridge and are answered across;
# a SIGKILL of r1's bridge turns bridge/r1/state offline on node b (last will) and the hall
# marks r1 down and refuses its commands; the game resumes after the restart. It prints
# which retained topics a late subscriber gets on each node. Last, node b is SIGKILLed and
# r2's way to the cluster (an address, 10.214.0.100) moves to node a: r2 reconnects there,
# node a then delivers r2's retained topics, and r2's next moves reach the hall.
#
# Needs root (namespaces, and ejabberd runs as the ejabberd user); without namespaces or
# ejabberd it skips loudly (exit 0), and fails under CI=true. Binaries: $BOARDBRIDGE_BIN_DIR,
# else the release build.
set -euo pipefail
cd "$(dirname "$0")/.."

keep=false
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) keep=true; shift ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        *) echo "test-cluster.sh: unknown argument $1 (try --help)" >&2; exit 64 ;;
    esac
done
ci="${CI:-false}"
say() { echo "cluster: $*" >&2; }
. deploy/netns-topology.sh

# --- can this machine do it? ---
for tool in ip ejabberdctl epmd dbus-daemon mosquitto_pub mosquitto_sub python3 curl; do
    command -v "$tool" >/dev/null || skip "$tool is not installed (deploy/install-deps.sh)"
done
id -u ejabberd >/dev/null 2>&1 || skip "no ejabberd user (the ejabberd package creates it: deploy/install-deps.sh)"
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces; ejabberdctl runs ejabberd as its user)"
require_namespaces bbclprobe

. deploy/release-bin.sh
bin="$(release_bin_dir test-cluster.sh)"
. deploy/pinned-venv.sh
venv="$(pinned_venv multihost deploy/multihost-requirements.txt)" || skip "cannot install deploy/multihost-requirements.txt"
py="$venv/bin/python"

# --- the topology, removed again whatever happens ---
id="$(( $$ % 100000 ))"
work="$(mktemp -d /tmp/boardbridge-cluster.XXXXXX)"
chmod 755 "$work"  # ejabberd runs as its own user
declare -A pid=()
namespaces=()
sides=(a b)
declare -A address=([a]=10.214.0.1 [b]=10.214.0.2) room=([a]=1 [b]=2)
ns() { echo "bbcl${id}$1"; }
beam_pid() { cat "$work/ejabberd-$1/ejabberd.pid" 2>/dev/null; }
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    # ejabberd's VM (its PID file) first: ejabberdctl's shell and su only wait for it.
    local beams=() side beam
    for side in "${sides[@]}"; do
        beam="$(beam_pid "$side")" && [ -n "$beam" ] && beams+=("$beam")
    done
    stop_pids "${beams[@]}" "${pid[@]}"
    remove_topology "$status" "$work"/*.log "$work"/ejabberd-*/logs/*.log
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

service=10.214.0.100  # room r2's way to the cluster: node b's, moved to node a on failover (phase 6)
ejctl() { # ejctl SIDE COMMAND...: ejabberdctl against SIDE's node
    local side="$1"; shift
    local dir="$work/ejabberd-$side"
    timeout 60 ip netns exec "$(ns "$side")" ejabberdctl --config-dir "$dir" --ctl-config "$dir/ejabberdctl.cfg" \
        --spool "$dir/spool" --logs "$dir/logs" "$@" 2>&1 | grep -v -e '^=ERROR REPORT' -e '^inet_config' -e '^$' || true
}
wait_for() { "$py" deploy/multihost.py wait "$work/recorder.jsonl" "$@"; }

ip netns add "$(ns a)"; namespaces+=("$(ns a)")
ip netns add "$(ns b)"; namespaces+=("$(ns b)")
ip link add "bc${id}a" netns "$(ns a)" type veth peer name "bc${id}b" netns "$(ns b)"
for side in "${sides[@]}"; do
    ip -n "$(ns "$side")" link set lo up
    ip -n "$(ns "$side")" addr add "${address[$side]}/24" dev "bc${id}$side"
    ip -n "$(ns "$side")" link set "bc${id}$side" up
done
ip -n "$(ns b)" addr add "$service/32" dev lo
say "namespaces $(ns a) and $(ns b), work folder $work"

# --- the cluster: the shipped configuration, a node name and the shared cookie per node ---
cookie="boardbridge-test-$id-$RANDOM$RANDOM"
started_at=$SECONDS
for side in "${sides[@]}"; do
    dir="$work/ejabberd-$side"
    mkdir -p "$dir/spool" "$dir/logs"
    cp deploy/ejabberd/ejabberd.yml deploy/ejabberd/inetrc "$dir/"
    sed -e "s|@NODE@|ejabberd@${address[$side]}|" -e "s|@ADDRESS@|${address[$side]}|" -e "s|@COOKIE@|$cookie|" \
        -e "s|@PIDFILE@|$dir/ejabberd.pid|" deploy/ejabberd/ejabberdctl.cfg >"$dir/ejabberdctl.cfg"
    chown -R ejabberd: "$dir"
    # Our own epmd per namespace (by PID); the node registers with it.
    start "epmd-$side" "$(ns "$side")" epmd -address "${address[$side]},127.0.0.1"
    for _ in $(seq 1 50); do ip netns exec "$(ns "$side")" epmd -names >/dev/null 2>&1 && break; sleep 0.1; done
    start "ejabberd-$side" "$(ns "$side")" ejabberdctl --config-dir "$dir" --ctl-config "$dir/ejabberdctl.cfg" \
        --spool "$dir/spool" --logs "$dir/logs" foreground
done
for side in "${sides[@]}"; do
    ejctl "$side" started >/dev/null
    status="$(ejctl "$side" status)"
    grep -q "is started" <<<"$status" || { say "ejabberd on $side did not start: $status"; exit 1; }
done
ejctl b join_cluster "ejabberd@${address[a]}" >/dev/null
ejctl b started >/dev/null
for side in "${sides[@]}"; do
    members="$(ejctl "$side" list_cluster | tr -d "'" | sort | tr '\n' ' ')"
    [ "$members" = "ejabberd@${address[a]} ejabberd@${address[b]} " ] ||
        { say "node $side lists the cluster as: $members"; exit 1; }
done
mqtt_user=boardbridge mqtt_password="test-$RANDOM$RANDOM"
ejctl a register "$mqtt_user" boardbridge.hall "$mqtt_password" >/dev/null
say "ejabberd cluster of ejabberd@${address[a]} and ejabberd@${address[b]} up in $((SECONDS - started_at)) s (each node lists both)"

# --- 1. what the cluster does across nodes ---
ip netns exec "$(ns a)" "$py" deploy/cluster.py probe "${address[a]}:1883" "${address[b]}:1883" \
    "$mqtt_user" "$mqtt_password" 2000

# --- 2. two rooms, the recorder on node b, the hall on node a ---
export MQTT_USERNAME="$mqtt_user" MQTT_PASSWORD="$mqtt_password"
start recorder "$(ns b)" "$py" deploy/multihost.py record 1883 "$work/recorder.jsonl"
for _ in $(seq 1 100); do grep -q '"connected"' "$work/recorder.jsonl" 2>/dev/null && break; sleep 0.1; done
grep -q '"connected"' "$work/recorder.jsonl" || { say "the recorder did not connect to node b"; exit 1; }
hall_port=8080 hall_password=cluster-arbiter
cat >"$work/hall.yaml" <<CONF
mqtt:
  url: mqtt://127.0.0.1:1883
  username: $mqtt_user
  password: $mqtt_password
hall:
  address: 127.0.0.1
  port: $hall_port
  arbiter_password: $hall_password
  audit_file: $work/hall-audit.jsonl
CONF
start hall "$(ns a)" "$bin/boardbridge" hall --config "$work/hall.yaml"
# The answer is taken whole before grep reads it: `curl … | grep -q` under pipefail fails
# when grep exits at its match while curl still writes (SIGPIPE, curl's status 23).
hall_connected() {
    local boards
    boards="$(ip netns exec "$(ns a)" curl -sf "http://127.0.0.1:$hall_port/api/boards" 2>/dev/null)" || return 1
    grep -q '"broker":"connected"' <<<"$boards"
}
for _ in $(seq 1 100); do
    hall_connected && break
    sleep 0.2
done
hall_connected || { say "the hall did not connect to node a"; exit 1; }

start_bridge() { # start_bridge SIDE
    local side="$1" r="${room[$1]}"
    start "bridge-r$r" "$(ns "$side")" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/bus-r$r" \
        "$bin/boardbridge" run --config "$work/bridge-r$r.yaml"
}
for side in "${sides[@]}"; do
    r="${room[$side]}"
    cat >"$work/bus-r$r.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=$work/bus-r$r</listen><auth>EXTERNAL</auth>
  <policy context="default"><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy>
</busconfig>
CONF
    start "dbus-r$r" "$(ns "$side")" dbus-daemon --config-file="$work/bus-r$r.conf" --nofork
    for _ in $(seq 1 50); do [ -S "$work/bus-r$r" ] && break; sleep 0.1; done
    start "boardsim-r$r" "$(ns "$side")" "$bin/boardsim" --bus "unix:path=$work/bus-r$r" --adapter hci0 \
        --board "id=r$r-b1,family=chessnut,name=Chessnut Air,address=C0:FF:EE:0$r:00:01" \
        --board "id=r$r-b2,family=millennium,name=MILLENNIUM CHESS,address=C0:FF:EE:0$r:00:02" --quiet
    broker=127.0.0.1
    [ "$side" = b ] && broker="$service"
    cat >"$work/bridge-r$r.yaml" <<CONF
mqtt:
  url: mqtt://$broker:1883
  username: $mqtt_user
  password: $mqtt_password
  keepalive: 5
node: r$r
state_directory: $work/state-r$r
bluetooth:
  adapters: [hci0]
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
done
# r1 first, r2 once r1 is up: r1 receives r2's info live and so knows r2's boards. r2 does
# not get r1's retained info (node b delivers no retained topic first published on node a
# after node b started: see the probe), so r2 does not know r1's boards.
boards=(r1-b1 r1-b2 r2-b1 r2-b2)
for side in "${sides[@]}"; do
    r="${room[$side]}"
    start_bridge "$side"
    wait_for 60 state "boardbridge/bridge/r$r/state" online
    for board in "r$r-b1" "r$r-b2"; do wait_for 90 state "boardbridge/$board/availability" online; done
done
say "room r1 on node a, room r2 on node b: the recorder on node b sees both bridges and all 4 boards online"
hall_metrics() { ip netns exec "$(ns a)" "$py" deploy/multihost.py hall-metrics "$hall_port" "$@"; }
hall_metrics 60 r1,r2 - "r1:r1-b1,r1:r1-b2,r2:r2-b1,r2:r2-b2"
say "the hall on node a lists both rooms' boards (r2's health reports crossed the cluster)"

# The Opera Game (Morphy, Paris 1858): 12 plies in two halves on every board, 4 more on r2's.
game=(e2e4 e7e5 g1f3 d7d6 d2d4 c8g4 d4e5 g4f3 d1f3 d6e5 f1c4 g8f6 f3b3 d8e7 b1c3 c7c6)
played=0
play() { # play PLIES: the next PLIES plies on every board at once
    local count="$1" r board players=()
    for r in 1 2; do
        for board in "r$r-b1" "r$r-b2"; do
            ip netns exec "$(ns "$([ "$r" = 1 ] && echo a || echo b)")" "$bin/boardsim" ctl --bus "unix:path=$work/bus-r$r" \
                play "$board" "${game[@]:$played:$count}" --pace 0.3 >>"$work/ctl.log" 2>&1 &
            players+=($!)
        done
    done
    for p in "${players[@]}"; do wait "$p" || { say "boardsim ctl play failed"; return 1; }; done
    played=$((played + count))
    for board in "${boards[@]}"; do wait_for 60 moves "$board" "$played"; done
}
play 6
say "phase 2: 6 plies on every board arrived on node b"

# --- 3. commands across the cluster, answered across ---
# Every bridge subscribes to <base>/+/set; one that knows (from the other node's info) that
# the board is another node's stays silent; only the owner answers.
# On node a for r2's board (its bridge is on node b); a subscriber on node a collects the answers.
ip netns exec "$(ns a)" timeout 20 mosquitto_sub -h 127.0.0.1 -u "$mqtt_user" -P "$mqtt_password" -q 1 \
    -t boardbridge/r2-b2/response -W 6 >"$work/response-a.txt" 2>>"$work/mosquitto_sub.log" &
sub_pid=$!
sleep 1
ip netns exec "$(ns a)" mosquitto_pub -h 127.0.0.1 -u "$mqtt_user" -P "$mqtt_password" -q 1 \
    -t boardbridge/r2-b2/set -m '{"leds":["d2","d4"],"transaction":"leds-r2-from-a"}'
# On node b for r1's board (on node a); the recorder on node b gets the answers.
ip netns exec "$(ns b)" mosquitto_pub -h 127.0.0.1 -u "$mqtt_user" -P "$mqtt_password" -q 1 \
    -t boardbridge/r1-b2/set -m '{"leds":["e2","e4"],"transaction":"leds-r1-from-b"}'
wait_for 30 response boardbridge/r1-b2/response leds-r1-from-b
wait "$sub_pid" || true  # -W ends it with a non-zero status
"$py" - "$work/recorder.jsonl" "$work/response-a.txt" <<'PY'
import json, sys
sys.path.insert(0, "deploy")
import multihost
on_b = [json.loads(m["payload"]) for m in multihost.messages(sys.argv[1]) if m["topic"] == "boardbridge/r1-b2/response"]
on_a = [json.loads(line) for line in open(sys.argv[2]) if line.strip()]
for where, board, transaction, answers in (("node b", "r1-b2", "leds-r1-from-b", on_b), ("node a", "r2-b2", "leds-r2-from-a", on_a)):
    answers = [a for a in answers if a.get("transaction") == transaction]
    ok = [a for a in answers if a["status"] == "ok"]
    # Exactly one answer, from the board's own bridge. r1 knows r2's boards from r2's info,
    # which reached it live; r2 never got r1's retained info across the cluster, but r1
    # publishes its info again when a bridge it did not know announces itself live.
    assert len(ok) == 1 and len(answers) == 1, (where, "answers other than the owner's single ok", answers)
    print(f"cluster: phase 3: a command for {board} published on {where}: answered ok once, across the cluster, "
          f"by its bridge; 0 'unknown board' answers from the other bridge", file=sys.stderr)
PY
# --- 4. SIGKILL of r1's bridge: its last will, across the cluster ---
stop bridge-r1 KILL
killed_at=$SECONDS
wait_for 30 state boardbridge/bridge/r1/state offline
say "phase 4: bridge r1 SIGKILLed on node a: bridge/r1/state offline on node b after $((SECONDS - killed_at)) s (last will: the kernel closed its socket)"
hall_metrics 30 r2 r1 "r2:r2-b1,r2:r2-b2"
ip netns exec "$(ns a)" "$py" deploy/multihost.py hall-command "$hall_port" "$hall_password" r1-b1 503 "node r1 offline"
# Which retained topics a late subscriber gets from each node (a finding, printed).
ip netns exec "$(ns a)" "$py" deploy/cluster.py retained "${address[a]}:1883" "${address[b]}:1883" \
    "$mqtt_user" "$mqtt_password" boardbridge/bridge/+/state boardbridge/+/availability boardbridge/bridge/+/info
start_bridge a
wait_for 60 state boardbridge/bridge/r1/state online
for board in r1-b1 r1-b2; do wait_for 90 state "boardbridge/$board/availability" online; done
play 6
say "phase 4: r1's bridge restarted, the game went on: $played plies on every board"

# --- 5. every move, exactly once and in order: on node b (recorder) and node a (hall) ---
"$py" deploy/cluster.py verify "$work/recorder.jsonl" "$played" "${boards[@]}"
for _ in $(seq 1 20); do
    ip netns exec "$(ns a)" "$py" deploy/cluster.py hall-moves "$hall_port" "$played" "${boards[@]}" 2>/dev/null && break
    sleep 0.5
done
ip netns exec "$(ns a)" "$py" deploy/cluster.py hall-moves "$hall_port" "$played" "${boards[@]}"

# --- 6. node b fails: r2's service address moves to node a, and r2 reconnects there ---
beam="$(beam_pid b)"
kill -KILL "$beam"
for _ in $(seq 1 50); do kill -0 "$beam" 2>/dev/null || break; sleep 0.1; done
rm -f "$work/ejabberd-b/ejabberd.pid"  # cleanup must not signal a PID that may be reused
failed_at=$SECONDS
ip -n "$(ns b)" addr del "$service/32" dev lo
ip -n "$(ns a)" addr add "$service/32" dev lo
ip -n "$(ns b)" route add "$service/32" via "${address[a]}"
for _ in $(seq 1 150); do [ "$(grep -c "mqtt: connected to" "$work/bridge-r2.log")" -ge 2 ] && break; sleep 0.2; done
[ "$(grep -c "mqtt: connected to" "$work/bridge-r2.log")" -ge 2 ] || { say "r2 did not reconnect through $service"; exit 1; }
say "phase 6: node b SIGKILLed, its address for r2 moved to node a: r2 reconnected in $((SECONDS - failed_at)) s"
# A bridge publishes its retained topics again on every connect: node a now delivers them.
ip netns exec "$(ns a)" "$py" deploy/cluster.py has-retained "${address[a]}:1883" "$mqtt_user" "$mqtt_password" \
    boardbridge/bridge/r2/state boardbridge/bridge/r2/info boardbridge/r2-b1/availability boardbridge/r2-b2/availability \
    boardbridge/r2-b1 boardbridge/r2-b2
hall_metrics 30 r1,r2 - "r1:r1-b1,r1:r1-b2,r2:r2-b1,r2:r2-b2"
players=()
for board in r2-b1 r2-b2; do
    ip netns exec "$(ns b)" "$bin/boardsim" ctl --bus "unix:path=$work/bus-r2" play "$board" \
        "${game[@]:$played:4}" --pace 0.3 >>"$work/ctl.log" 2>&1 &
    players+=($!)
done
for p in "${players[@]}"; do wait "$p" || { say "boardsim ctl play failed"; exit 1; }; done
for _ in $(seq 1 40); do
    ip netns exec "$(ns a)" "$py" deploy/cluster.py hall-moves "$hall_port" "$((played + 4))" r2-b1 r2-b2 2>/dev/null && break
    sleep 0.5
done
ip netns exec "$(ns a)" "$py" deploy/cluster.py hall-moves "$hall_port" "$((played + 4))" r2-b1 r2-b2
say "phase 6: r2's next 4 plies after the failover reached the hall on node a"
say "PASSED: 2 ejabberd nodes, 2 rooms, ${#boards[@]} boards, $played plies each, in $SECONDS s"
