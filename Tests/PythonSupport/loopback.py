"""Loopback helpers shared by every Python end-to-end test (hall, broadcast, Home Assistant):
free ports, whether one is listening, and a private mosquitto's configuration."""

import os
import socket


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def write_mosquitto_conf(path, port):
    """A private mosquitto on 127.0.0.1:`port`: anonymous, nothing persisted (as root it
    must be told to stay root, or it drops to a `mosquitto` user that cannot read `path`)."""
    with open(path, "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
        if os.getuid() == 0:
            f.write("user root\n")
