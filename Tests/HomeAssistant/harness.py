"""Helpers of the Home Assistant suite: the boards, waiting, HTTP, websocket, an MQTT spy."""

import asyncio
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

import paho.mqtt.client as mqtt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "PythonSupport"))
from loopback import free_port, port_open, write_mosquitto_conf  # noqa: E402,F401 (the suite's names)

NODE = "ha-test"
BASE = "boardbridge"
PREFIX = "homeassistant"


@dataclass(frozen=True)
class Board:
    id: str
    family: str
    address: str
    advertised: str
    name: str
    manufacturer: str
    model: str
    area: str | None = None
    time_control: str | None = None
    battery: int | None = None
    has_battery: bool = True
    has_leds: bool = True
    # A USB board behind one of boardsim's pseudo-terminals (the bridge opens `link_path`),
    # not a Bluetooth one: no MAC in the device registry.
    serial: bool = False
    # Certabo: a "Calibrate pieces" button.
    has_calibration: bool = False
    # Whether "Request state" writes to the board (a board that streams its position, or is
    # given the position by the host, is asked nothing).
    request_writes: bool = True

    @property
    def device_id(self):
        return f"{BASE}_board_{self.id}"

    def link_path(self, work):
        """Where boardsim links a serial board's pseudo-terminal (the bridge's `serial:`)."""
        return os.path.join(work, f"{self.id}.tty")

    @property
    def slug(self):
        """The entity id prefix Home Assistant derives from the device name."""
        return slugify(self.name)


def slugify(text):
    out, last = [], "_"
    for ch in text.lower():
        if ch.isalnum():
            out.append(ch)
            last = ch
        elif last != "_":
            out.append("_")
            last = "_"
    return "".join(out).strip("_")


BOARDS = [
    Board("board-1", "chessnut", "C0:FF:EE:00:00:01", "Chessnut Air", "Board 1", "Chessnut", "Chessnut",
          area="Hall A", time_control="300+3", battery=77),
    Board("board-2", "chessup", "C0:FF:EE:00:00:02", "ChessUp", "Board 2", "Bryght Labs", "ChessUp",
          battery=44, has_leds=False),
    Board("board-3", "squareoff", "C0:FF:EE:00:00:03", "Square Off Pro", "Board 3", "Square Off", "Square Off",
          area="Hall B", battery=66),
    Board("board-4", "pegasus", "C0:FF:EE:00:00:04", "DGT_Pegasus_SIM", "Board 4", "DGT", "DGT Pegasus", battery=55),
    Board("board-5", "millennium", "C0:FF:EE:00:00:05", "MILLENNIUM CHESS", "Board 5", "Millennium",
          "Millennium ChessLink", has_battery=False),
    # The families of issue #32: two USB boards (Certabo calibrates its pieces from the start
    # position at its first link) and two BLE ones.
    Board("board-6", "certabo", "C0:FF:EE:00:00:06", "", "Board 6", "Certabo", "Certabo", has_battery=False,
          serial=True, has_calibration=True, request_writes=False),
    Board("board-7", "sentio", "C0:FF:EE:00:00:07", "", "Board 7", "Tabutronic", "Tabutronic Sentio",
          has_battery=False, serial=True, request_writes=False),
    Board("board-8", "ichessone", "C0:FF:EE:00:00:08", "iChessOne", "Board 8", "iChessOne", "iChessOne",
          battery=88),
    Board("board-9", "cpp", "C0:FF:EE:00:00:09", "CPP Board", "Board 9", "Chess Peripheral Protocol",
          "Chess Peripheral Protocol board", has_battery=False, has_leds=False, request_writes=False),
]
BOARD = {b.family: b for b in BOARDS}
BRIDGE_DEVICE_ID = f"{BASE}_bridge_{NODE}"
BRIDGE_NAME = f"BoardBridge {NODE}"


def wait_for(predicate, timeout, what, alive=None, interval=0.25):
    """Polls `predicate` until it returns a true value (returned) or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = predicate()
        except Exception as error:  # a request racing a restart: try again
            last = error
            if not isinstance(error, (OSError, KeyError, ValueError, AssertionError)):
                raise
        else:
            if last:
                return last
        if alive is not None and not alive.alive():
            said = ""
            if getattr(alive, "log_path", None):
                with open(alive.log_path, errors="replace") as f:
                    said = ": " + f.read()[-800:].strip()
            raise AssertionError(f"{alive.name} exited ({alive.popen.returncode}) while waiting for {what}{said}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")
        time.sleep(interval)


def write_json(path, value):
    with open(path, "w") as f:
        json.dump(value, f, indent=2)


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def rest(url, token, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read().decode()
        return json.loads(text) if text else None


def onboard(base):
    """Creates the owner through onboarding and returns an access token."""
    client_id = base + "/"
    body = json.dumps(
        {"client_id": client_id, "name": "Test", "username": "test", "password": "test-password-1",
         "language": "en"}
    ).encode()
    request = urllib.request.Request(base + "/api/onboarding/users", data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        code = json.loads(response.read())["auth_code"]
    form = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code, "client_id": client_id})
    with urllib.request.urlopen(base + "/auth/token", data=form.encode(), timeout=30) as response:
        return json.loads(response.read())["access_token"]


def websocket(url, token, messages):
    """Sends each message (an id is added) over one authenticated connection; returns the results."""

    async def run():
        import aiohttp

        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(url) as ws:
                await ws.receive_json()  # auth_required
                await ws.send_json({"type": "auth", "access_token": token})
                reply = await ws.receive_json()
                if reply.get("type") != "auth_ok":
                    raise AssertionError(f"websocket auth: {reply}")
                results = []
                for number, message in enumerate(messages, start=1):
                    await ws.send_json({"id": number, **message})
                    while True:
                        reply = await ws.receive_json(timeout=30)
                        if reply.get("id") == number and reply.get("type") == "result":
                            break
                    if not reply.get("success"):
                        raise AssertionError(f"websocket {message}: {reply}")
                    results.append(reply.get("result"))
                return results

    return asyncio.run(run())


def watch_states(url, token, entity_ids, action, done, timeout):
    """Subscribes to state_changed, runs `action()` (in a thread), and collects the states of
    `entity_ids` until `done(history)` holds or `timeout` seconds pass; returns the history
    {entity_id: [state, ...]} (transient states included, which polling could miss)."""

    async def run():
        import aiohttp

        history = {entity: [] for entity in entity_ids}
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(url) as ws:
                await ws.receive_json()
                await ws.send_json({"type": "auth", "access_token": token})
                if (await ws.receive_json()).get("type") != "auth_ok":
                    raise AssertionError("websocket auth failed")
                await ws.send_json({"id": 1, "type": "subscribe_events", "event_type": "state_changed"})
                while (await ws.receive_json(timeout=30)).get("type") != "result":
                    pass
                acting = asyncio.get_running_loop().run_in_executor(None, action)
                deadline = time.monotonic() + timeout
                while not done(history) and time.monotonic() < deadline:
                    try:
                        message = await ws.receive_json(timeout=max(0.1, deadline - time.monotonic()))
                    except asyncio.TimeoutError:
                        break
                    data = message.get("event", {}).get("data", {})
                    if data.get("entity_id") in history and data.get("new_state"):
                        history[data["entity_id"]].append(data["new_state"]["state"])
                await acting
        return history

    return asyncio.run(run())


class Spy:
    """An MQTT client on the test's broker that records every message (retained ones too)."""

    def __init__(self, port):
        self.lock = threading.Lock()
        self.messages = []  # (monotonic time, topic, payload bytes, retained)
        self.retained = {}
        if hasattr(mqtt, "CallbackAPIVersion"):
            self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="boardbridge-ha-test-spy")
        else:
            self.client = mqtt.Client(client_id="boardbridge-ha-test-spy")
        self.client.on_message = self._on_message
        self.client.on_connect = lambda client, *_: client.subscribe("#", qos=1)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_message(self, client, userdata, message):
        with self.lock:
            self.messages.append((time.monotonic(), message.topic, bytes(message.payload), message.retain))
            if message.payload:
                self.retained[message.topic] = bytes(message.payload)
            else:
                self.retained.pop(message.topic, None)

    def mark(self):
        with self.lock:
            return len(self.messages)

    def since(self, mark, topic=None):
        with self.lock:
            return [m for m in self.messages[mark:] if topic is None or m[1] == topic]

    def retained_now(self, pattern):
        """The broker's retained messages on topics matching the MQTT filter `pattern` (a fresh client)."""
        found = {}
        if hasattr(mqtt, "CallbackAPIVersion"):
            client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        else:
            client = mqtt.Client()

        def on_message(client, userdata, message):
            if message.retain and message.payload:
                found[message.topic] = bytes(message.payload)

        client.on_message = on_message
        client.on_connect = lambda c, *_: c.subscribe(pattern, qos=1)
        client.connect("127.0.0.1", self.client._port)
        client.loop_start()
        time.sleep(1.5)  # retained messages arrive at once after SUBACK
        client.loop_stop()
        client.disconnect()
        return found

    def publish(self, topic, payload, retain=False):
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish()

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()
