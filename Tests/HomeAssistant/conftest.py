"""The processes of the Home Assistant suite, each started and stopped by its PID.

One stack per test session: a private dbus-daemon, boardsim owning org.bluez on it with
one board of every family, a private mosquitto on a free loopback port, the bridge
(`boardbridge run`) with Home Assistant discovery on, and Home Assistant core with a fresh
configuration folder (onboarded through its API, MQTT set up as a stored config entry).
Run by ./deploy/test-homeassistant.sh, which provides the venv and these variables:

  BOARDBRIDGE_BIN_DIR               folder of the boardbridge and boardsim binaries
  BOARDBRIDGE_HA_VERSION            the Home Assistant version under test
  BOARDBRIDGE_HA_DEVICE_DISCOVERY   "true": the bridge publishes device discovery
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import harness  # noqa: E402

BIN = os.environ.get("BOARDBRIDGE_BIN_DIR", "")
DEVICE_DISCOVERY = os.environ.get("BOARDBRIDGE_HA_DEVICE_DISCOVERY", "false") == "true"
# The automation and dashboard examples shipped for Home Assistant users.
EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "homeassistant")
DASHBOARDS = ("board", "hall")


def pytest_report_header(config):
    return (
        f"Home Assistant {os.environ.get('BOARDBRIDGE_HA_VERSION', '?')}, "
        f"device_discovery: {DEVICE_DISCOVERY}, binaries: {BIN}"
    )


class Process:
    """A child process with its log file; stopped by PID (TERM, then KILL)."""

    def __init__(self, name, argv, log, env=None, cwd=None):
        self.name = name
        self.argv = argv
        self.log_path = log
        self.log = open(log, "ab")
        self.popen = subprocess.Popen(
            argv, stdout=self.log, stderr=subprocess.STDOUT, env=env, cwd=cwd, stdin=subprocess.DEVNULL
        )
        self.pid = self.popen.pid

    def alive(self):
        return self.popen.poll() is None

    def kill(self):
        """SIGKILL, as a crash: no goodbye, the broker sends the last will."""
        if self.alive():
            os.kill(self.pid, signal.SIGKILL)
        self.popen.wait()
        self.log.close()

    def stop(self, timeout=20):
        if self.alive():
            os.kill(self.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.pid, signal.SIGKILL)
                self.popen.wait()
        if not self.log.closed:
            self.log.close()


class Stack:
    """Everything the tests talk to; see the module comment."""

    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="boardbridge-ha.")
        self.processes = []
        self.device_discovery = DEVICE_DISCOVERY
        self.ha_version = os.environ.get("BOARDBRIDGE_HA_VERSION", "")
        self.bus = f"unix:path={self.work}/bus"
        self.mqtt_port = harness.free_port()
        self.http_port = harness.free_port()
        self.ha_config = os.path.join(self.work, "homeassistant")
        self.bridge = None
        self.ha = None
        self.token = None
        self.spy = None

    def start(self, name, argv, **kwargs):
        process = Process(name, argv, os.path.join(self.work, name + ".log"), **kwargs)
        self.processes.append(process)
        return process

    # --- the processes ------------------------------------------------------------

    def start_bus(self):
        with open(os.path.join(self.work, "bus.conf"), "w") as f:
            f.write(
                '<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"\n'
                ' "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">\n'
                f"<busconfig><type>session</type><listen>{self.bus}</listen><auth>EXTERNAL</auth>"
                '<policy context="default"><allow own="*"/><allow send_destination="*"/>'
                '<allow receive_sender="*"/></policy></busconfig>\n'
            )
        self.start("dbus-daemon", ["dbus-daemon", f"--config-file={self.work}/bus.conf", "--nofork"])
        harness.wait_for(lambda: os.path.exists(f"{self.work}/bus"), 10, "the private bus socket")

    def start_boardsim(self):
        argv = [os.path.join(BIN, "boardsim"), "--bus", self.bus, "--quiet"]
        for board in harness.BOARDS:
            spec = f"family={board.family},address={board.address}"
            spec += f",link={board.link_path(self.work)}" if board.serial else f",name={board.advertised}"
            if board.battery is not None:
                spec += f",battery={board.battery}"
            argv += ["--board", spec]
        boardsim = self.start("boardsim", argv)
        harness.wait_for(lambda: self.ctl_ok("list"), 15, "boardsim owning org.bluez", alive=boardsim)

    def start_mosquitto(self):
        conf = os.path.join(self.work, "mosquitto.conf")
        harness.write_mosquitto_conf(conf, self.mqtt_port)
        self.start("mosquitto", ["mosquitto", "-c", conf])
        harness.wait_for(lambda: harness.port_open(self.mqtt_port), 10, "mosquitto listening")

    def bridge_config(self, boards=None, device_discovery=None):
        boards = harness.BOARDS if boards is None else boards
        device_discovery = self.device_discovery if device_discovery is None else device_discovery
        lines = [
            "mqtt:",
            f"  url: mqtt://127.0.0.1:{self.mqtt_port}",
            f"node: {harness.NODE}",
            f"state_directory: {self.work}/state",
            "homeassistant:",
            "  enabled: true",
            f"  device_discovery: {'true' if device_discovery else 'false'}",
            "game:",
            "  desync_grace: 0.5",
            "reconnect:",
            "  max_attempts: 1000",
            "  delays: [0.5, 1, 2]",
            "boards:",
        ]
        for board in boards:
            lines += [
                f"  - id: {board.id}",
                f"    name: {board.name}",
                f"    serial: {board.link_path(self.work)}" if board.serial else f"    address: {board.address}",
                f"    family: {board.family}",
            ]
            if board.area:
                lines.append(f"    area: {board.area}")
            if board.time_control:
                lines.append(f'    time_control: "{board.time_control}"')
        path = os.path.join(self.work, "config.yaml")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def start_bridge(self, **config):
        path = self.bridge_config(**config)
        self.bridge = self.start(
            "boardbridge", [os.path.join(BIN, "boardbridge"), "run", "--config", path, "--bus", self.bus]
        )
        return self.bridge

    def start_homeassistant(self):
        os.makedirs(os.path.join(self.ha_config, ".storage"))
        with open(os.path.join(self.ha_config, "configuration.yaml"), "w") as f:
            f.write(
                "homeassistant:\n  name: BoardBridge test\n  latitude: 0\n  longitude: 0\n"
                "  elevation: 0\n  unit_system: metric\n  time_zone: UTC\n"
                f"http:\n  server_host: 127.0.0.1\n  server_port: {self.http_port}\n"
                "api:\nwebsocket_api:\nconfig:\nonboarding:\ndevice_automation:\n"
                "automation: !include automations.yaml\n"
                # The shipped examples (deploy/homeassistant), loaded as they are.
                "automation examples: !include boardbridge/automations.yaml\n"
                "lovelace:\n  mode: storage\n  dashboards:\n"
                + "".join(
                    f"    boardbridge-{name}:\n      mode: yaml\n      title: {name}\n"
                    f"      filename: boardbridge/dashboard-{name}.yaml\n"
                    for name in DASHBOARDS
                )
            )
        with open(os.path.join(self.ha_config, "automations.yaml"), "w") as f:
            f.write("[]\n")
        shutil.copytree(EXAMPLES, os.path.join(self.ha_config, "boardbridge"))
        # MQTT is set up through a config entry (YAML broker settings are gone); an old
        # storage version, which every later release migrates.
        entries = {
            "version": 1,
            "minor_version": 1,
            "key": "core.config_entries",
            "data": {
                "entries": [
                    {
                        "entry_id": uuid.uuid4().hex,
                        "version": 1,
                        "minor_version": 1,
                        "domain": "mqtt",
                        "title": "127.0.0.1",
                        "data": {"broker": "127.0.0.1", "port": self.mqtt_port, "discovery": True},
                        "options": {},
                        "pref_disable_new_entities": False,
                        "pref_disable_polling": False,
                        "source": "user",
                        "unique_id": None,
                        "disabled_by": None,
                    }
                ]
            },
        }
        harness.write_json(os.path.join(self.ha_config, ".storage", "core.config_entries"), entries)
        self.launch_homeassistant()
        self.token = harness.onboard(self.url(""))
        harness.wait_for(lambda: self.ha_running(), 300, "Home Assistant running", alive=self.ha)

    def launch_homeassistant(self):
        hass = os.path.join(os.path.dirname(sys.executable), "hass")
        self.ha = self.start("homeassistant", [hass, "--config", self.ha_config, "--skip-pip"])
        harness.wait_for(
            lambda: harness.http_status(self.url("/api/onboarding")) in (200, 401, 404),
            300,
            "Home Assistant's HTTP server",
            alive=self.ha,
        )

    def restart_homeassistant(self):
        """Stops Home Assistant (SIGTERM) and starts it again on the same configuration; the
        access token stays valid (its key is in .storage/auth)."""
        self.ha.stop(timeout=60)
        self.launch_homeassistant()
        harness.wait_for(lambda: self.ha_running(), 300, "Home Assistant running again", alive=self.ha)

    def ha_running(self):
        try:
            return self.rest("GET", "/api/config").get("state") == "RUNNING"
        except Exception:
            return False

    # --- talking to them ------------------------------------------------------------

    def url(self, path):
        return f"http://127.0.0.1:{self.http_port}{path}"

    def rest(self, method, path, body=None):
        return harness.rest(self.url(path), self.token, method, body)

    def ws(self, *messages):
        return harness.websocket(f"ws://127.0.0.1:{self.http_port}/api/websocket", self.token, list(messages))

    def ctl(self, *args):
        out = subprocess.run(
            [os.path.join(BIN, "boardsim"), "ctl", "--bus", self.bus, *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if out.returncode != 0:
            raise AssertionError(f"boardsim ctl {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    def ctl_ok(self, *args):
        try:
            self.ctl(*args)
            return True
        except Exception:
            return False

    def stop_all(self):
        if self.spy:
            self.spy.close()
        for process in reversed(self.processes):
            process.stop()


@pytest.fixture(scope="session")
def stack():
    if not BIN or not os.path.exists(os.path.join(BIN, "boardbridge")):
        pytest.fail("BOARDBRIDGE_BIN_DIR must name a folder with boardbridge and boardsim")
    for tool in ("dbus-daemon", "mosquitto"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing (./deploy/install-deps.sh)")
    s = Stack()
    try:
        s.start_bus()
        s.start_boardsim()
        s.start_mosquitto()
        s.spy = harness.Spy(s.mqtt_port)
        s.start_bridge()
        started = time.monotonic()
        s.start_homeassistant()
        print(f"\nHome Assistant up in {time.monotonic() - started:.1f} s; work folder {s.work}", file=sys.stderr)
        yield s
    finally:
        s.stop_all()
        if os.environ.get("BOARDBRIDGE_HA_KEEP"):
            print(f"kept {s.work}", file=sys.stderr)
        else:
            shutil.rmtree(s.work, ignore_errors=True)
