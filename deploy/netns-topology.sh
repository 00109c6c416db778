# Shared by deploy/test-multihost.sh and deploy/test-cluster.sh: processes started in network
# namespaces the test created, stopped by PID and removed again whatever happens.
#
#   . deploy/netns-topology.sh
#
# The caller defines say() and sets ci, and, before it starts anything: work (its folder),
# keep (true: leave $work), the associative array pid (name → PID) and the array namespaces.

# skip WHY: the test cannot run on this machine; a failure under CI=true, else a loud skip.
skip() {
    if [ "$ci" = true ]; then say "FAILED (CI=true): $*"; exit 1; fi
    say "SKIPPED: $*"; exit 0
}

# require_namespaces PREFIX: skips unless a network namespace can be created here.
require_namespaces() {
    local probe="$1$$"
    ip netns add "$probe" 2>/dev/null || skip "network namespaces are not allowed here (ip netns add failed)"
    ip netns del "$probe"
}

# start NAME NAMESPACE COMMAND...: runs COMMAND in NAMESPACE, output to $work/NAME.log.
start() {
    local name="$1" namespace="$2"; shift 2
    ip netns exec "$namespace" "$@" >>"$work/$name.log" 2>&1 &
    pid[$name]=$!
}

# stop NAME [SIGNAL]: signals what start NAME started and waits for it.
stop() {
    local name="$1" signal="${2:-TERM}"
    kill "-$signal" "${pid[$name]}" 2>/dev/null || true
    wait "${pid[$name]}" 2>/dev/null || true
    unset "pid[$name]"
}

# stop_pids PID...: TERM to each in order, then up to 5 s for each to end, then KILL.
stop_pids() {
    local p
    for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "$@"; do
        for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null || true
    done
}

# remove_topology STATUS LOG...: deletes the namespaces; after a failure shows the last lines
# of each LOG and keeps $work; removes $work unless kept.
remove_topology() {
    local status="$1" namespace log
    shift
    for namespace in "${namespaces[@]}"; do ip netns del "$namespace" 2>/dev/null || true; done
    if [ "$status" -ne 0 ]; then
        say "FAILED (exit $status); last lines of the logs in $work:"
        for log in "$@"; do
            [ -f "$log" ] && { echo "--- $log" >&2; tail -8 "$log" >&2; }
        done
        keep=true
    fi
    if [ "$keep" = true ]; then say "logs kept in $work"; else rm -rf "$work"; fi
}
