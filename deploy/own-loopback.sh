# Sourced by the deploy/test-*.sh scripts whose processes talk over 127.0.0.1 only.
#
# in_own_loopback COMMAND...
#   Runs COMMAND in a network namespace of its own (`unshare --net`, its loopback up) when
#   this runs as root with unshare and ip at hand, else as it is. In a namespace of its own
#   a test's brokers and servers share no port with anything else on the machine, so it can
#   run beside other loopback tests (the chains of .ci/run). Nothing in it reaches the
#   network: prepare what needs it (a venv) before.

in_own_loopback() {
    if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null; then
        unshare --net sh -c 'ip link set lo up && exec "$@"' sh "$@"
    else
        "$@"
    fi
}
