"""The bridge against a real Home Assistant core: devices, entities, states, availability,
buttons, device triggers and the MQTT integration's log, read through Home Assistant's
REST and websocket API. One Home Assistant for the whole module; the tests run in file
order (later ones move pieces, drop links, kill and reconfigure the bridge).

Tests of known defects (issue #18 items 1–8) assert the correct behaviour; while a defect was
open its test was marked xfail(strict=True), and the mark went with the fix.
"""

import json
import os
import re
import time

import pytest

import harness
from conftest import BIN, DASHBOARDS
from harness import BOARDS, BOARD, BRIDGE_DEVICE_ID, slugify

HA_VERSION = tuple(int(part) for part in os.environ.get("BOARDBRIDGE_HA_VERSION", "0.0").split(".")[:2])

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"

# (component, object id, name, entity_category, enabled by default) of every board entity the
# bridge announces.
BOARD_ENTITIES = [
    ("binary_sensor", "connectivity", "Connection", "diagnostic", True),
    ("binary_sensor", "ready", "Ready", None, True),
    ("sensor", "connection_state", "Connection state", "diagnostic", True),
    ("binary_sensor", "out_of_sync", "Out of sync", None, True),
    ("event", "board_event", "Board event", None, True),
    ("sensor", "last_move", "Last move", None, True),
    ("sensor", "fen", "Position", None, True),
    ("sensor", "turn", "Side to move", None, True),
    ("sensor", "move_number", "Move number", None, True),
    ("sensor", "clock_white", "White clock", None, True),
    ("sensor", "clock_black", "Black clock", None, True),
    ("sensor", "clock_running", "Running clock", None, True),
    ("sensor", "white", "White", None, True),
    ("sensor", "black", "Black", None, True),
    ("sensor", "event", "Event", None, True),
    ("sensor", "round", "Round", None, True),
    ("sensor", "pgn", "PGN", None, False),
    ("button", "new_game", "New game", None, True),
    ("button", "takeback", "Take back", None, True),
    ("button", "clock_pause", "Pause clock", None, True),
    ("button", "clock_resume", "Resume clock", None, True),
    ("button", "clear_leds", "Clear LEDs", None, True),
    ("select", "result", "Result", None, True),
    ("select", "led_pattern", "LED pattern", None, True),
    ("select", "orientation", "Orientation", "config", True),
    ("sensor", "battery", "Battery", "diagnostic", True),
    ("button", "request_state", "Request state", "diagnostic", True),
    ("button", "request_battery", "Request battery", "diagnostic", True),
    ("button", "reconnect", "Reconnect", "diagnostic", True),
    ("sensor", "last_seen", "Last seen", "diagnostic", False),
    ("sensor", "adapter", "Bluetooth adapter", "diagnostic", False),
    ("sensor", "last_error", "Last connection error", "diagnostic", False),
    # Issue #20: the board's figures from the bridge's health report.
    ("binary_sensor", "health_stalled", "Stalled", "diagnostic", True),
    ("sensor", "health_rssi", "Signal strength", "diagnostic", True),
    ("sensor", "health_notification_rate", "Notifications per second", "diagnostic", True),
    ("sensor", "health_last_frame", "Since last frame", "diagnostic", True),
    ("sensor", "health_reconnects", "Reconnects", "diagnostic", True),
    ("sensor", "health_missing_acks", "Missing acknowledgements", "diagnostic", True),
    ("sensor", "health_malformed_frames", "Malformed frames", "diagnostic", True),
]
# A Certabo board's one more button (issue #32).
CALIBRATE = ("button", "calibrate", "Calibrate pieces", "config", True)
# The entities that follow the bridge's availability only (not the board's).
BRIDGE_ONLY = {"connectivity", "ready", "connection_state", "reconnect", "last_error"} | {
    e[1] for e in BOARD_ENTITIES if e[1].startswith("health_")
}
# The bridge device's entities: (object id, entity_category).
BRIDGE_ENTITIES = [
    ("connection_state", "diagnostic"), ("version", "diagnostic"), ("boards", "diagnostic"),
    ("boards_connected", "diagnostic"), ("reconnect_all", "config"), ("restart", "config"),
    ("health_state_directory", "diagnostic"), ("health_uptime", "diagnostic"), ("health_cpu", "diagnostic"),
    ("health_memory", "diagnostic"), ("health_mqtt_queued", "diagnostic"), ("health_mqtt_dropped", "diagnostic"),
    ("health_free_space", "diagnostic"),
]


def expected_entities(board, enabled_only=False):
    keys = BOARD_ENTITIES
    if not board.has_battery:
        keys = [e for e in keys if e[1] not in ("battery", "request_battery")]
    if not board.has_leds:
        keys = [e for e in keys if e[1] not in ("clear_leds", "led_pattern")]
    if board.has_calibration:
        keys = keys + [CALIBRATE]
    if board.serial:  # a USB board: no radio
        keys = [e for e in keys if e[1] not in ("health_rssi", "adapter")]
    if enabled_only:
        keys = [e for e in keys if e[4]]
    return keys


def ids(boards):
    return [b.family for b in boards]


# --- reading Home Assistant ------------------------------------------------------------


def registries(stack):
    devices, entities = stack.ws({"type": "config/device_registry/list"}, {"type": "config/entity_registry/list"})
    return devices, entities


def mqtt_device(devices, identifier):
    for device in devices:
        if ["mqtt", identifier] in device["identifiers"]:
            return device
    return None


def entity_id(stack, board, key, _cache={}):
    unique_id = f"{board.device_id}_{key}"
    if unique_id not in _cache:
        _, entities = registries(stack)
        for entity in entities:
            if entity["platform"] == "mqtt" and entity.get("unique_id") == unique_id:
                _cache[unique_id] = entity["entity_id"]
                break
        else:
            raise KeyError(unique_id)
    return _cache[unique_id]


def state(stack, entity):
    return stack.rest("GET", f"/api/states/{entity}")


def value(stack, board, key):
    return state(stack, entity_id(stack, board, key))["state"]


def wait_value(stack, board, key, wanted, timeout=60):
    """Waits until the entity's state is `wanted` (a value, or a predicate)."""
    check = wanted if callable(wanted) else (lambda v: v == wanted)
    last = []

    def probe():
        v = value(stack, board, key)
        last[:] = [v]
        return check(v)

    try:
        harness.wait_for(probe, timeout, f"{board.id} {key} == {wanted!r}", alive=stack.ha)
    except AssertionError:
        raise AssertionError(f"{board.id} {key}: state {last[0] if last else None!r}, wanted {wanted!r}")


def all_board_entity_ids(stack, board):
    """The board's entities that have a state (those enabled by default)."""
    return [entity_id(stack, board, e[1]) for e in expected_entities(board, enabled_only=True)]


def board_availability_entities(stack, board):
    """The enabled entities that follow the board's availability topic (BRIDGE_ONLY follow the
    bridge only)."""
    return [entity_id(stack, board, e[1]) for e in expected_entities(board, enabled_only=True) if e[1] not in BRIDGE_ONLY]


def mqtt_log_problems(stack, start=0):
    """ERROR and WARNING lines of the MQTT integration in home-assistant.log (from byte `start`),
    with those of the template helper (which renders the MQTT entities' templates)."""
    path = os.path.join(stack.ha_config, "home-assistant.log")
    text = ""
    if start == 0 and os.path.exists(path + ".1"):  # Home Assistant rolls the log over at each start
        with open(path + ".1", errors="replace") as f:
            text = f.read()
    with open(path, errors="replace") as f:
        f.seek(start)
        text += f.read()
    pattern = re.compile(r"^\S+ \S+ (ERROR|WARNING) \([^)]*\) \[homeassistant\.(components\.mqtt|helpers\.template)[^\]]*\]")
    return [line for line in text.splitlines() if pattern.match(line)]


def log_size(stack):
    return os.path.getsize(os.path.join(stack.ha_config, "home-assistant.log"))


def writes(stack, board):
    return [json.loads(line) for line in stack.ctl("writes", board.address).splitlines() if line.strip()]


def retained_state(stack, board):
    return json.loads(stack.spy.retained[f"{harness.BASE}/{board.id}"])


def wait_all_ready(stack, boards=BOARDS, timeout=180):
    for board in boards:
        wait_value(stack, board, "ready", "on", timeout)
        wait_value(stack, board, "fen", lambda v: v not in ("unavailable", "unknown"), timeout)


# --- the announced stack ---------------------------------------------------------------


@pytest.fixture(scope="module")
def ha(stack):
    """Home Assistant with every device announced and every board ready."""

    def announced():
        devices, entities = registries(stack)
        if mqtt_device(devices, BRIDGE_DEVICE_ID) is None:
            return False
        unique_ids = {e.get("unique_id") for e in entities if e["platform"] == "mqtt"}
        for board in BOARDS:
            for entity in expected_entities(board):
                if f"{board.device_id}_{entity[1]}" not in unique_ids:
                    return False
        return True

    harness.wait_for(announced, 180, "every device and entity announced", alive=stack.ha)
    wait_all_ready(stack)
    return stack


def test_bridge_device(ha):
    devices, _ = registries(ha)
    bridge = mqtt_device(devices, BRIDGE_DEVICE_ID)
    assert bridge["name"] == harness.BRIDGE_NAME
    assert bridge["manufacturer"] == "BoardBridge"
    assert bridge["model"] == "BoardBridge"
    assert bridge["sw_version"]
    assert bridge["via_device_id"] is None


@pytest.mark.parametrize("board", BOARDS, ids=ids(BOARDS))
def test_board_device_linked_via_the_bridge(ha, board):
    devices, _ = registries(ha)
    bridge = mqtt_device(devices, BRIDGE_DEVICE_ID)
    device = mqtt_device(devices, board.device_id)
    assert device is not None, f"no device {board.device_id}"
    assert device["name"] == board.name
    assert device["manufacturer"] == board.manufacturer
    assert device["model"] == board.model
    assert device["via_device_id"] == bridge["id"]
    assert device["area_id"] == (slugify(board.area) if board.area else None)
    if board.serial:  # a USB board: no Bluetooth address to show
        assert device["connections"] == []
    else:
        assert ["mac", board.address.lower()] in device["connections"]


def test_exactly_one_device_per_board_and_the_bridge(ha):
    devices, _ = registries(ha)
    ours = [d for d in devices if any(i[0] == "mqtt" and i[1].startswith(harness.BASE + "_") for i in d["identifiers"])]
    assert sorted(i[1] for d in ours for i in d["identifiers"]) == sorted(
        [BRIDGE_DEVICE_ID] + [b.device_id for b in BOARDS]
    )


@pytest.mark.parametrize("board", BOARDS, ids=ids(BOARDS))
def test_board_entities_ids_and_categories(ha, board):
    devices, entities = registries(ha)
    device = mqtt_device(devices, board.device_id)
    mine = {e["unique_id"]: e for e in entities if e["device_id"] == device["id"]}
    expected = {f"{board.device_id}_{e[1]}": e for e in expected_entities(board)}
    assert sorted(mine) == sorted(expected), "the board's entities"
    for unique_id, (component, key, name, category, enabled) in expected.items():
        entity = mine[unique_id]
        assert entity["entity_id"] == f"{component}.{board.slug}_{slugify(name)}", unique_id
        assert entity["entity_category"] == category, unique_id
        assert (entity["disabled_by"] is None) == enabled, unique_id


def test_bridge_connectivity_entity(ha):
    devices, entities = registries(ha)
    bridge = mqtt_device(devices, BRIDGE_DEVICE_ID)
    mine = {e["unique_id"]: e for e in entities if e["device_id"] == bridge["id"]}
    assert sorted(mine) == sorted(f"{BRIDGE_DEVICE_ID}_{key}" for key, _ in BRIDGE_ENTITIES)
    for key, category in BRIDGE_ENTITIES:
        assert mine[f"{BRIDGE_DEVICE_ID}_{key}"]["entity_category"] == category, key
    assert state(ha, mine[f"{BRIDGE_DEVICE_ID}_connection_state"]["entity_id"])["state"] == "on"
    assert state(ha, mine[f"{BRIDGE_DEVICE_ID}_boards"]["entity_id"])["state"] == str(len(BOARDS))
    # Issue #18: boards connected, from the health report (published at start-up).
    assert state(ha, mine[f"{BRIDGE_DEVICE_ID}_boards_connected"]["entity_id"])["state"] == str(len(BOARDS))
    version = state(ha, mine[f"{BRIDGE_DEVICE_ID}_version"]["entity_id"])["state"]
    assert version == bridge["sw_version"]


@pytest.mark.parametrize("board", BOARDS, ids=ids(BOARDS))
def test_initial_states(ha, board):
    assert value(ha, board, "connectivity") == "on"
    assert value(ha, board, "ready") == "on"
    assert value(ha, board, "connection_state") == "ready"
    assert value(ha, board, "fen") == START_FEN
    assert value(ha, board, "turn") == "white"
    assert value(ha, board, "move_number") == "1"
    assert value(ha, board, "out_of_sync") == "off"


# Issue #18 item 2 (fixed): a null last move renders empty, not "None" (2024.3).
@pytest.mark.parametrize("board", [BOARD["millennium"]], ids=["millennium"])
def test_last_move_before_the_first_move_is_unknown(ha, board):
    assert value(ha, board, "last_move") in ("unknown", "")


# Issue #18 item 1 (fixed): every board that reports its battery is asked after ready.
BATTERY_BOARDS = [BOARD[f] for f in ("chessnut", "squareoff", "chessup", "ichessone")]


@pytest.mark.parametrize("board", BATTERY_BOARDS, ids=ids(BATTERY_BOARDS))
def test_battery_reported(ha, board):
    wait_value(ha, board, "battery", str(board.battery), timeout=10)


@pytest.mark.parametrize("board", [BOARD["pegasus"]], ids=["pegasus"])
def test_battery_reported_pegasus(ha, board):
    wait_value(ha, board, "battery", str(board.battery), timeout=30)


# Issue #18 item 7 (fixed): the state names the model the device card shows.
def test_device_model_matches_the_state_payload(ha):
    board = BOARD["squareoff"]
    devices, _ = registries(ha)
    assert mqtt_device(devices, board.device_id)["model"] == retained_state(ha, board)["model"]


@pytest.mark.parametrize("board", BOARDS, ids=ids(BOARDS))
def test_moves_reach_the_sensors(ha, board):
    ha.ctl("play", board.address, "e2e4", "e7e5", "--pace", "0.3")
    wait_value(ha, board, "fen", AFTER_E4_E5)
    assert value(ha, board, "last_move") == "e5"
    assert value(ha, board, "move_number") == "2"
    assert value(ha, board, "turn") == "white"
    assert value(ha, board, "out_of_sync") == "off"


def test_event_entity_saw_the_moves(ha):
    for board in BOARDS:
        event = state(ha, entity_id(ha, board, "board_event"))
        assert event["state"] not in ("unknown", "unavailable"), board.id
        assert event["attributes"]["event_type"] in event["attributes"]["event_types"]


# Issue #18 item 4 (fixed): in_sync only after an out_of_sync.
def test_event_entity_shows_the_move_after_a_move(ha):
    board = BOARD["chessnut"]
    ha.ctl("play", board.address, "g1f3", "--pace", "0.3")
    wait_value(ha, board, "last_move", "Nf3")
    time.sleep(1)
    assert state(ha, entity_id(ha, board, "board_event"))["attributes"]["event_type"] == "move"


def test_timed_board_clock_sensors(ha):
    board = BOARD["chessnut"]  # 300+3
    for key in ("clock_white", "clock_black"):
        v = value(ha, board, key)
        assert 0 < float(v) <= 300 + 3 * 4, (key, v)  # 300+3, a few moves played


BUTTON_CASES = [
    (b, key) for b in BOARDS for key in ("request_state", "clear_leds")
    if (key == "request_state" and b.request_writes) or (key == "clear_leds" and b.has_leds)
]


@pytest.mark.parametrize("board,key", BUTTON_CASES, ids=[f"{b.family}-{k}" for b, k in BUTTON_CASES])
def test_button_writes_to_the_board(ha, board, key):
    before = len(writes(ha, board))
    ha.rest("POST", "/api/services/button/press", {"entity_id": entity_id(ha, board, key)})
    harness.wait_for(lambda: len(writes(ha, board)) > before, 30, f"a write to {board.id} after {key}")


@pytest.mark.parametrize("board", BOARDS, ids=ids(BOARDS))
def test_new_game_button(ha, board):
    mark = ha.spy.mark()
    ha.rest("POST", "/api/services/button/press", {"entity_id": entity_id(ha, board, "new_game")})
    harness.wait_for(
        lambda: any(json.loads(m[2]) == {"new_game": {}} for m in ha.spy.since(mark, f"{harness.BASE}/{board.id}/set")),
        30,
        f"the new_game command of {board.id} on MQTT",
    )
    ha.ctl("reset", board.address)  # the person sets the pieces up again
    wait_value(ha, board, "fen", START_FEN)
    wait_value(ha, board, "out_of_sync", "off")
    assert value(ha, board, "move_number") == "1"


# Issue #32: a Certabo board learns its pieces again from Home Assistant's button: the bridge
# forgets the tags, the link is made again, and the board, on the start position, is read
# afresh (the calibration lights, then the `calibration` event `learned` with every tag).
def test_calibrate_button_has_the_certabo_learn_its_pieces_again(ha):
    board = BOARD["certabo"]
    wait_value(ha, board, "fen", START_FEN)
    before = len(writes(ha, board))
    mark = ha.spy.mark()
    press(ha, board, "calibrate")
    wait_command(ha, mark, f"{harness.BASE}/{board.id}/set", b'{"calibrate":true}', "the calibrate command")

    def learned():
        for m in ha.spy.since(mark, f"{harness.BASE}/{board.id}/event"):
            event = json.loads(m[2])
            if event.get("event_type") == "calibration" and event.get("state") == "learned":
                return event
        return None

    event = harness.wait_for(learned, 60, "the calibration learned again")
    assert event["pieces"] == 32, event
    # Ranks 8, 7, 2 and 1 and the spare queens' d6 and d3 lit (docs/certabo.md).
    lights = "ffff08000008ffff"
    harness.wait_for(lambda: any(w["hex"] == lights for w in writes(ha, board)[before:]), 30,
                     "the calibration lights written to the board")
    wait_value(ha, board, "ready", "on")
    wait_value(ha, board, "fen", START_FEN)
    ha.ctl("play", board.address, "g1f3", "--pace", "0.3")  # the pieces are known again
    wait_value(ha, board, "last_move", "Nf3")
    start_afresh(ha, board)


# --- command entities (issue #18 item 8) ---------------------------------------------------


def press(ha, board, key):
    ha.rest("POST", "/api/services/button/press", {"entity_id": entity_id(ha, board, key)})


def select(ha, board, key, option):
    ha.rest("POST", "/api/services/select/select_option", {"entity_id": entity_id(ha, board, key), "option": option})


def wait_command(ha, mark, topic, payload, what):
    """Waits for `payload` (bytes) on `topic` since `mark`."""
    harness.wait_for(lambda: any(m[2] == payload for m in ha.spy.since(mark, topic)), 30, what)


def start_afresh(ha, board, **tags):
    """A new game (with `tags`), the pieces set up again: the board at the start, in sync."""
    ha.spy.publish(f"{harness.BASE}/{board.id}/set", json.dumps({"new_game": tags}))
    ha.ctl("reset", board.address)
    wait_value(ha, board, "fen", START_FEN)
    wait_value(ha, board, "out_of_sync", "off")


def test_game_sensors_clock_buttons_and_countdown(ha):
    board = BOARD["chessnut"]  # 300+3
    start_afresh(ha, board, white="Doe, J", black="Roe, R", event="Club ch", round=3)
    wait_value(ha, board, "white", "Doe, J")
    assert (value(ha, board, "black"), value(ha, board, "event"), value(ha, board, "round")) == ("Roe, R", "Club ch", "3")
    assert value(ha, board, "last_move") in ("", "unknown")  # a fresh game: no "None"
    ha.ctl("play", board.address, "e2e4", "--pace", "0.3")
    wait_value(ha, board, "clock_running", "black")
    black = state(ha, entity_id(ha, board, "clock_black"))["attributes"]
    white = state(ha, entity_id(ha, board, "clock_white"))["attributes"]
    assert black["running"] is True and white["running"] is False
    assert white["flag_fall"] is None
    assert black["flag_fall"] > time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()), black  # ISO 8601, ahead
    clock = f"{harness.BASE}/{board.id}/clock"
    mark = ha.spy.mark()
    press(ha, board, "clock_pause")
    wait_command(ha, mark, f"{harness.BASE}/{board.id}/set", b'{"clock":"pause"}', "the pause command")
    harness.wait_for(lambda: any(json.loads(m[2])["action"] == "pause" for m in ha.spy.since(mark, clock)), 30, "paused")
    mark = ha.spy.mark()
    press(ha, board, "clock_resume")
    wait_command(ha, mark, f"{harness.BASE}/{board.id}/set", b'{"clock":"resume"}', "the resume command")
    harness.wait_for(lambda: any(json.loads(m[2])["action"] == "resume" for m in ha.spy.since(mark, clock)), 30, "resumed")
    start_afresh(ha, board)
    wait_value(ha, board, "white", lambda v: v in ("", "unknown"))  # the tags went with the game


def test_takeback_button(ha):
    board = BOARD["squareoff"]
    ha.ctl("play", board.address, "e2e4", "--pace", "0.3")
    wait_value(ha, board, "last_move", "e4")
    mark = ha.spy.mark()
    press(ha, board, "takeback")
    wait_command(ha, mark, f"{harness.BASE}/{board.id}/set", b'{"takeback":1}', "the takeback command")
    wait_value(ha, board, "move_number", "1")
    wait_value(ha, board, "last_move", lambda v: v in ("", "unknown"))  # the only move taken back: no "None"
    ha.ctl("reset", board.address)  # the pawn goes back
    wait_value(ha, board, "out_of_sync", "off")


def test_result_select(ha):
    board = BOARD["squareoff"]
    assert value(ha, board, "result") == "*"
    mark = ha.spy.mark()
    select(ha, board, "result", "1/2-1/2")
    wait_command(ha, mark, f"{harness.BASE}/{board.id}/set/result", b"1/2-1/2", "the result command")
    wait_value(ha, board, "result", "1/2-1/2")
    start_afresh(ha, board)
    wait_value(ha, board, "result", "*")


def test_orientation_select(ha):
    board = BOARD["chessnut"]
    # Read from the board's state (issue #30), not optimistic: it shows the setting before any choice.
    wait_value(ha, board, "orientation", "auto")
    mark = ha.spy.mark()
    select(ha, board, "orientation", "white")
    wait_command(ha, mark, f"{harness.BASE}/{board.id}/set/orientation", b"white", "the orientation command")
    wait_value(ha, board, "orientation", "white")
    time.sleep(1)
    assert not [m for m in ha.spy.since(mark, f"{harness.BASE}/{board.id}/response") if b'"error"' in m[2]]


def test_request_battery_button_writes_to_the_board(ha):
    board = BOARD["chessnut"]
    before = len(writes(ha, board))
    mark = ha.spy.mark()
    press(ha, board, "request_battery")
    wait_command(ha, mark, f"{harness.BASE}/{board.id}/set", b'{"request":"battery"}', "the battery request")
    harness.wait_for(lambda: len(writes(ha, board)) > before, 30, f"a write to {board.id}")


def test_reconnect_button(ha):
    board = BOARD["pegasus"]
    mark = ha.spy.mark()
    press(ha, board, "reconnect")
    response = f"{harness.BASE}/bridge/{harness.NODE}/response/reconnect"
    wait_command(ha, mark, f"{harness.BASE}/bridge/{harness.NODE}/request/reconnect",
                 json.dumps({"board": board.id}, separators=(",", ":")).encode(), "the reconnect request")
    harness.wait_for(
        lambda: any(json.loads(m[2])["status"] == "ok" for m in ha.spy.since(mark, response)), 30, "its answer")
    wait_value(ha, board, "ready", "on", 120)


def test_command_entities_only_where_the_family_can(ha):
    _, entities = registries(ha)
    unique_ids = {e.get("unique_id") for e in entities}
    assert f"{BOARD['chessup'].device_id}_clear_leds" not in unique_ids  # no square LEDs
    assert f"{BOARD['millennium'].device_id}_request_battery" not in unique_ids  # no battery
    assert f"{BOARD['chessnut'].device_id}_request_battery" in unique_ids
    assert f"{BOARD['cpp'].device_id}_clear_leds" not in unique_ids  # the protocol has no LED commands
    assert [b.family for b in BOARDS if f"{b.device_id}_calibrate" in unique_ids] == ["certabo"]


# --- device triggers --------------------------------------------------------------------


def device_triggers(ha, board):
    devices, _ = registries(ha)
    device = mqtt_device(devices, board.device_id)
    (triggers,) = ha.ws({"type": "device_automation/trigger/list", "device_id": device["id"]})
    return {(t["type"], t["subtype"]): t for t in triggers if t.get("domain") == "mqtt"}


@pytest.fixture(scope="module")
def automations(ha):
    """One automation per (board, trigger) used below; returns {(board id, type): automation entity}."""
    wanted = [(BOARD["chessnut"], "paused"), (BOARD["chessnut"], "resumed"), (BOARD["pegasus"], "out_of_sync"),
              (BOARD["pegasus"], "paused"), (BOARD["pegasus"], "resumed")]
    items, names = [], {}
    for board, kind in wanted:
        triggers = device_triggers(ha, board)
        trigger = next(t for (t_type, _), t in triggers.items() if t_type == kind)
        automation_id = f"bb_{board.id.replace('-', '_')}_{kind}"
        items.append({"id": automation_id, "alias": automation_id, "trigger": [trigger], "action": []})
        names[(board.id, kind)] = automation_id
    with open(os.path.join(ha.ha_config, "automations.yaml"), "w") as f:
        json.dump(items, f)  # JSON is YAML
    ha.rest("POST", "/api/services/automation/reload", {})

    def by_id():
        found = {}
        for s in ha.rest("GET", "/api/states"):
            if s["entity_id"].startswith("automation.") and s["attributes"].get("id") in names.values():
                found[s["attributes"]["id"]] = s["entity_id"]
        return found if len(found) == len(names) else None

    found = harness.wait_for(by_id, 30, "the test automations")
    return {key: found[automation_id] for key, automation_id in names.items()}


def last_triggered(ha, entity):
    return state(ha, entity)["attributes"].get("last_triggered")


@pytest.mark.parametrize("board", BOARDS, ids=ids(BOARDS))
def test_device_triggers_listed(ha, board):
    triggers = device_triggers(ha, board)
    assert sorted(triggers) == [("out_of_sync", "position"), ("paused", "clock"), ("resumed", "clock")]


def test_clock_triggers_fire(ha, automations):
    board = BOARD["chessnut"]
    ha.ctl("play", board.address, "e2e4", "--pace", "0.3")  # Black's clock runs
    wait_value(ha, board, "last_move", "e4")
    paused, resumed = automations[(board.id, "paused")], automations[(board.id, "resumed")]
    time.sleep(1)  # the move's own clock messages are handled
    before = last_triggered(ha, paused)
    ha.spy.publish(f"{harness.BASE}/{board.id}/set", json.dumps({"clock": "pause"}))
    harness.wait_for(lambda: last_triggered(ha, paused) != before, 30, "the clock-paused automation")
    before = last_triggered(ha, resumed)
    ha.spy.publish(f"{harness.BASE}/{board.id}/set", json.dumps({"clock": "resume"}))
    harness.wait_for(lambda: last_triggered(ha, resumed) != before, 30, "the clock-resumed automation")


def test_out_of_sync_trigger_fires(ha, automations):
    board = BOARD["pegasus"]
    entity = automations[(board.id, "out_of_sync")]
    assert last_triggered(ha, entity) is None
    ha.ctl("place", board.address, "d5", "q")  # a piece from nowhere: no move explains it
    harness.wait_for(lambda: last_triggered(ha, entity), 30, "the out-of-sync automation")
    wait_value(ha, board, "out_of_sync", "on")
    ha.ctl("lift", board.address, "d5")
    wait_value(ha, board, "out_of_sync", "off")


# Issue #18 item 5 (fixed): untimed games publish no clock action.
def test_no_clock_trigger_on_an_untimed_game(ha, automations):
    board = BOARD["pegasus"]  # untimed
    mark = ha.spy.mark()
    ha.ctl("play", board.address, "e2e4", "--pace", "0.3")
    wait_value(ha, board, "last_move", "e4")
    ha.ctl("place", board.address, "h4", "q")  # no black move reaches h4: out of sync
    wait_value(ha, board, "out_of_sync", "on")
    ha.ctl("lift", board.address, "h4")
    wait_value(ha, board, "out_of_sync", "off")
    time.sleep(1)
    fired = {kind: last_triggered(ha, automations[(board.id, kind)]) for kind in ("paused", "resumed")}
    clock = [m[2].decode() for m in ha.spy.since(mark, f"{harness.BASE}/{board.id}/clock")]
    # Today: resume (move), pause (out_of_sync), resume (in_sync), all with null times.
    assert clock == []
    assert fired == {"paused": None, "resumed": None}


# --- the shipped examples (deploy/homeassistant) -----------------------------------------

ENTITY_ID = re.compile(r"^(sensor|binary_sensor|select|button|event)\.(board|boardbridge)_[a-z0-9_]+$")


def referenced_entities(node, found=None):
    """Every BoardBridge-style entity id in a YAML/JSON tree (strings and entity fields)."""
    found = set() if found is None else found
    if isinstance(node, dict):
        for item in node.values():
            referenced_entities(item, found)
    elif isinstance(node, list):
        for item in node:
            referenced_entities(item, found)
    elif isinstance(node, str) and ENTITY_ID.match(node):
        found.add(node)
    return found


def registered_entity_ids(ha):
    _, entities = registries(ha)
    return {e["entity_id"] for e in entities}


@pytest.mark.parametrize("name", DASHBOARDS)
def test_dashboard_loads_and_uses_only_existing_entities(ha, name):
    (config,) = ha.ws({"type": "lovelace/config", "url_path": f"boardbridge-{name}"})
    assert config["views"], name
    used = referenced_entities(config)
    assert len(used) > 10
    assert sorted(used - registered_entity_ids(ha)) == []


def test_example_automations_are_valid_and_use_only_existing_entities(ha):
    import yaml

    with open(os.path.join(ha.ha_config, "boardbridge", "automations.yaml")) as f:
        examples = yaml.safe_load(f)
    by_id = {s["attributes"].get("id"): s for s in ha.rest("GET", "/api/states") if s["entity_id"].startswith("automation.")}
    for example in examples:
        assert example["id"] in by_id, f"automation {example['id']} not loaded"
        assert by_id[example["id"]]["state"] == "on", by_id[example["id"]]
        keys = ("triggers", "conditions", "actions") if HA_VERSION >= (2024, 10) else ("trigger", "condition", "action")
        (checked,) = ha.ws({"type": "validate_config", keys[0]: example["trigger"],
                            keys[1]: example.get("condition", []), keys[2]: example["action"]})
        assert all(result["valid"] for result in checked.values()), (example["id"], checked)
    used = referenced_entities(examples)
    assert len(used) >= 5
    assert sorted(used - registered_entity_ids(ha)) == []


# --- availability -----------------------------------------------------------------------


def test_board_link_drop_makes_its_entities_unavailable_then_available(ha):
    board = BOARD["millennium"]
    other = BOARD["chessnut"]
    ha.ctl("present", board.address, "off")  # the link drops (timeout) and reconnects fail
    for entity in board_availability_entities(ha, board):
        harness.wait_for(lambda: state(ha, entity)["state"] == "unavailable", 60, f"{entity} unavailable")
    assert value(ha, board, "connectivity") == "off"
    assert value(ha, board, "ready") == "off"
    assert value(ha, board, "connection_state") not in ("ready", "unavailable")
    assert value(ha, other, "fen") != "unavailable"
    ha.ctl("present", board.address, "on")
    wait_value(ha, board, "ready", "on", 120)
    for entity in board_availability_entities(ha, board):
        harness.wait_for(lambda: state(ha, entity)["state"] != "unavailable", 60, f"{entity} available")
    assert value(ha, board, "connectivity") == "on"


def test_short_link_drop_unavailable_then_available(ha):
    board = BOARD["squareoff"]
    fen = entity_id(ha, board, "fen")

    def done(history):
        states = history[fen]
        return "unavailable" in states and states[-1] not in ("unavailable", "unknown")

    history = harness.watch_states(
        f"ws://127.0.0.1:{ha.http_port}/api/websocket", ha.token, [fen],
        lambda: ha.ctl("drop", board.address), done, 120,
    )
    assert done(history), history  # the link drops (unavailable) and the bridge reconnects
    wait_value(ha, board, "ready", "on", 120)


def test_sigkill_of_the_bridge_then_restart(ha):
    devices, entities = registries(ha)
    bridge_entity = next(e["entity_id"] for e in entities if e.get("unique_id") == f"{BRIDGE_DEVICE_ID}_connection_state")
    ha.bridge.kill()  # the broker publishes the bridge's last will
    harness.wait_for(lambda: state(ha, bridge_entity)["state"] == "off", 60, "the bridge offline")
    for board in BOARDS:
        for entity in all_board_entity_ids(ha, board):
            if entity.endswith("_connection"):  # connectivity: no availability of its own
                continue
            harness.wait_for(lambda: state(ha, entity)["state"] == "unavailable", 30, f"{entity} unavailable")
    ha.start_bridge()
    harness.wait_for(lambda: state(ha, bridge_entity)["state"] == "on", 60, "the bridge online")
    wait_all_ready(ha)


def test_homeassistant_restart_gets_everything_announced_again(ha):
    before = {b.id: value(ha, b, "fen") for b in BOARDS}
    mark = ha.spy.mark()
    ha.restart_homeassistant()
    # Home Assistant's birth message makes the bridge announce again (after 0.5-3 s).
    harness.wait_for(
        lambda: any(m[1].startswith(harness.PREFIX + "/") and m[1] != f"{harness.PREFIX}/status" and not m[3]
                    for m in ha.spy.since(mark)),
        60,
        "the bridge's discovery after Home Assistant's birth message",
    )
    for board in BOARDS:
        wait_value(ha, board, "fen", before[board.id])
        wait_value(ha, board, "ready", "on")
    devices, _ = registries(ha)
    assert all(mqtt_device(devices, b.device_id) for b in BOARDS)


def test_no_mqtt_errors_or_warnings_in_the_log(ha):
    time.sleep(2)
    assert mqtt_log_problems(ha) == []


# Issue #30 (3): what only the hall sees, in Home Assistant: the hall is a device of its own
# whose alerts come from its retained summary, and which goes unavailable when it stops.
def test_the_hall_device_shows_its_alerts_and_goes_unavailable_when_it_stops(ha):
    if ha.device_discovery and HA_VERSION < (2024, 11):
        pytest.skip("this Home Assistant does not read device discovery")
    start = log_size(ha)
    with open(os.path.join(ha.work, "round.csv"), "w") as f:
        f.write('board,board_id,white,black\n1,hall-spare,"Doe, John","Moe, Max"\n')
    config = os.path.join(ha.work, "hall.yaml")
    with open(config, "w") as f:
        f.write(
            f"mqtt:\n  url: mqtt://127.0.0.1:{ha.mqtt_port}\n"
            f"homeassistant:\n  enabled: true\n  device_discovery: {'true' if ha.device_discovery else 'false'}\n"
            f"hall:\n  address: 127.0.0.1\n  port: {harness.free_port()}\n  audit_file: {ha.work}/hall-audit.jsonl\n"
            "  broadcast:\n    orphan_after: 10\n    rounds:\n"
            '      - round: "1"\n        pairings_file: round.csv\n        running: true\n'
        )
    hall = ha.start("hall", [os.path.join(BIN, "boardbridge"), "hall", "--config", config])
    hall_id = f"{harness.BASE}_hall"

    def hall_entities():
        devices, entities = registries(ha)
        device = mqtt_device(devices, hall_id)
        if device is None:
            return None
        mine = {e["unique_id"]: e["entity_id"] for e in entities if e["device_id"] == device["id"]}
        return mine if len(mine) == 4 else None

    try:
        entities = harness.wait_for(hall_entities, 120, "the hall device and its four entities", alive=hall)
        attention = entities[f"{hall_id}_attention"]
        alerts = entities[f"{hall_id}_alerts"]
        # The one paired board is never heard: after orphan_after it is a silent board.
        harness.wait_for(lambda: state(ha, attention)["state"] == "on", 90, "the hall needs attention", alive=hall)
        assert state(ha, alerts)["state"] == "1"
        listed = state(ha, alerts)["attributes"]["alerts"]
        assert [(a["alert"], a["board_id"]) for a in listed] == [("orphan_board", "hall-spare")], listed
        assert state(ha, entities[f"{hall_id}_orphan_boards"])["state"] == "1"
        hall.stop()
        harness.wait_for(lambda: state(ha, attention)["state"] == "unavailable", 60, "the stopped hall unavailable")
        assert mqtt_log_problems(ha, start) == []
    finally:
        hall.stop()
        # Withdrawn, so that the reconfiguration tests below see only the bridge's discovery.
        for topic in ha.spy.retained_now(f"{harness.PREFIX}/#"):
            if f"/{hall_id}/" in topic:
                ha.spy.publish(topic, "", retain=True)


# --- reconfiguration (last: they change the announced set) ------------------------------


# Issue #18 item 3 (fixed): discovery is withdrawn before the retained state is cleared.
def test_removing_a_board_logs_no_error(ha):
    removed = BOARD["millennium"]
    start = log_size(ha)
    ha.bridge.stop()
    ha.start_bridge(boards=[b for b in BOARDS if b is not removed])

    def gone():
        devices, _ = registries(ha)
        return mqtt_device(devices, removed.device_id) is None

    harness.wait_for(gone, 60, "the removed board's device deleted")
    wait_all_ready(ha, [b for b in BOARDS if b is not removed])
    time.sleep(2)
    problems = mqtt_log_problems(ha, start)
    if ha.device_discovery:
        # Home Assistant's own echo: removing a device-discovered device, it publishes empty
        # payloads on the device topic itself (for its device triggers and disabled entities,
        # "so the service is not rediscovered") and then warns that the topic has nothing left
        # to clean up. Not sent by the bridge (its one empty payload removed the device).
        echo = f"No device components to cleanup for {removed.device_id}, node_id 'None'"
        problems = [line for line in problems if not (" WARNING " in line and line.endswith(echo))]
    assert problems == []


# Issue #18 item 6 (fixed): the old mode's topics are cleared at start.
def test_switching_discovery_mode_leaves_no_stale_config(ha):
    boards = [b for b in BOARDS if b is not BOARD["millennium"]]
    ha.bridge.stop()
    ha.start_bridge(boards=boards, device_discovery=not ha.device_discovery)
    if ha.device_discovery or HA_VERSION >= (2024, 11):
        wait_all_ready(ha, boards)  # Home Assistant reads the new mode
    else:  # device discovery, which this Home Assistant does not read: only the broker is checked
        harness.wait_for(lambda: ha.spy.retained_now(f"{harness.PREFIX}/device/#"), 60, "the device configs")
    time.sleep(2)

    def stale():
        retained = ha.spy.retained_now(f"{harness.PREFIX}/#")
        if ha.device_discovery:  # now per component: no device message may remain
            return [t for t in retained if t.startswith(f"{harness.PREFIX}/device/")]
        return [t for t in retained if not t.startswith(f"{harness.PREFIX}/device/") and t != f"{harness.PREFIX}/status"]

    assert stale() == []
