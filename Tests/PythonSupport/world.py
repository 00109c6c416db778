"""The processes the Python end-to-end tests share (Tests/HallBrowser, Tests/Broadcast): a
private dbus-daemon with boardsim owning org.bluez on it, a private mosquitto on a free
loopback port, bridges (one per node) and the hall, each started and stopped by PID with
its output in the work folder. BOARDBRIDGE_BIN_DIR names the folder with boardbridge and
boardsim."""

import base64
import os
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from loopback import free_port, port_open, write_mosquitto_conf  # noqa: E402,F401 (re-exported)

BIN = os.environ["BOARDBRIDGE_BIN_DIR"]


def wait_for(predicate, timeout, what, interval=0.05):
    """The first truthy value of predicate(); an exception counts as not yet (a restarting
    service, a page being rebuilt, a half-written answer)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except Exception as error:
            last = error
        if last and not isinstance(last, Exception):
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


class World:
    """A work folder, a bus address, a broker port and a hall port; processes by name."""

    def __init__(self, prefix):
        self.work = tempfile.mkdtemp(prefix=prefix)
        self.bus = f"unix:path={self.work}/bus"
        self.mqtt_port = free_port()
        self.http_port = free_port()
        self.processes = {}

    def start(self, name, argv, env=None):
        log = open(os.path.join(self.work, name + ".log"), "ab")
        popen = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 env=None if env is None else {**os.environ, **env})
        self.processes[name] = (popen, log)
        return popen

    def stop(self, name, sig=signal.SIGTERM):
        popen, log = self.processes.pop(name)
        if popen.poll() is None:
            os.kill(popen.pid, sig)
            try:
                popen.wait(20)
            except subprocess.TimeoutExpired:
                os.kill(popen.pid, signal.SIGKILL)
                popen.wait()
        log.close()

    def stop_all(self):
        for name in reversed(list(self.processes)):
            self.stop(name)

    def log(self, name):
        with open(os.path.join(self.work, name + ".log"), errors="replace") as f:
            return f.read()

    def ctl(self, *args):
        out = subprocess.run([os.path.join(BIN, "boardsim"), "ctl", "--bus", self.bus, *args],
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise AssertionError(f"boardsim ctl {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    SERIAL_FAMILIES = ("dgt", "certabo", "sentio")

    def serial_link(self, address):
        """Where boardsim links the pseudo-terminal of the USB board at `address`."""
        return os.path.join(self.work, address.replace(":", "") + ".tty")

    def start_boards_and_broker(self, boards):
        """The private bus, boardsim with `boards` ((family, address, name) each; a USB family's
        board behind a pseudo-terminal at `serial_link(address)`) and mosquitto."""
        with open(os.path.join(self.work, "bus.conf"), "w") as f:
            f.write('<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"\n'
                    ' "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">\n'
                    f"<busconfig><type>session</type><listen>{self.bus}</listen><auth>EXTERNAL</auth>"
                    '<policy context="default"><allow own="*"/><allow send_destination="*"/>'
                    '<allow receive_sender="*"/></policy></busconfig>\n')
        self.start("dbus-daemon", ["dbus-daemon", f"--config-file={self.work}/bus.conf", "--nofork"])
        wait_for(lambda: os.path.exists(f"{self.work}/bus"), 10, "the private bus")
        argv = [os.path.join(BIN, "boardsim"), "--bus", self.bus, "--quiet"]
        for family, address, name in boards:
            where = f"link={self.serial_link(address)}" if family in self.SERIAL_FAMILIES else f"name={name}"
            argv += ["--board", f"family={family},address={address},{where}"]
        self.start("boardsim", argv)
        wait_for(lambda: self.ctl("list") is not None, 15, "boardsim owning org.bluez", interval=0.3)
        conf = os.path.join(self.work, "mosquitto.conf")
        write_mosquitto_conf(conf, self.mqtt_port)
        self.start("mosquitto", ["mosquitto", "-c", conf])
        wait_for(lambda: port_open(self.mqtt_port), 10, "mosquitto")

    def start_bridge(self, node, boards, extra=()):
        """`boardbridge run` as `node` for `boards` ((id, family, address, time control or
        None) each); `extra` are more top-level config lines."""
        lines = ["mqtt:", f"  url: mqtt://127.0.0.1:{self.mqtt_port}", f"node: {node}",
                 f"state_directory: {self.work}/state-{node}", "game:", "  desync_grace: 0.3", *extra,
                 "reconnect:", "  max_attempts: 10", "  delays: [1.5]", "boards:"]
        for board_id, family, address, time_control in boards:
            where = (f"    serial: {self.serial_link(address)}" if family in self.SERIAL_FAMILIES
                     else f"    address: {address}")
            lines += [f"  - id: {board_id}", f"    name: Board {board_id[1:]}", where, f"    family: {family}"]
            if time_control:
                lines.append(f'    time_control: "{time_control}"')
        os.makedirs(f"{self.work}/state-{node}", exist_ok=True)
        path = os.path.join(self.work, f"bridge-{node}.yaml")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.start(f"bridge-{node}", [os.path.join(BIN, "boardbridge"), "run", "--config", path, "--bus", self.bus])

    def start_hall_with(self, hall_lines, env=None):
        """`boardbridge hall` on the broker and `http_port`; `hall_lines` go under `hall:`."""
        path = os.path.join(self.work, "hall.yaml")
        with open(path, "w") as f:
            f.write(f"mqtt:\n  url: mqtt://127.0.0.1:{self.mqtt_port}\nhall:\n  address: 127.0.0.1\n"
                    f"  port: {self.http_port}\n  audit_file: {self.work}/hall-audit.jsonl\n"
                    + "".join(f"  {line}\n" for line in hall_lines))
        self.start("hall", [os.path.join(BIN, "boardbridge"), "hall", "--config", path], env=env)
        wait_for(lambda: port_open(self.http_port), 15, "the hall listening")

    def request(self, path, method="GET", data=None, headers=None, password=None):
        """(status, headers, body) of an HTTP request to the hall; `password` as the arbiter's."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.http_port}{path}", method=method, data=data)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        if password:
            request.add_header("Authorization", "Basic " + base64.b64encode(f"a:{password}".encode()).decode())
            request.add_header("X-BoardBridge-Hall", "1")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()
