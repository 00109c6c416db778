"""The recording subscriber and the checks of deploy/test-multihost.sh.

  multihost.py record PORT LOG      subscribe on the central broker (persistent session,
                                    QoS 1) and append every message to LOG, one JSON line;
                                    logs in as $MQTT_USERNAME with $MQTT_PASSWORD when set
  multihost.py publish PORT ROOM BOARDS PLIES   the load of BOARDS boards of ROOM: per ply and
                                    board a move, the retained full state and the retained
                                    PGN (QoS 1), boards interleaved; returns once all are acked
  multihost.py wait LOG SECONDS CHECK ARG...   poll LOG until CHECK holds (exit 1 on timeout)
  multihost.py moves LOG BOARD      print the number of distinct moves of BOARD
  multihost.py verify LOG PLIES MOVES BOARD... every board got plies 1..PLIES exactly once
                                    in order (duplicates counted, then dropped), with the UCI
                                    moves MOVES (comma-separated, or - for any); prints counts
  multihost.py hall-metrics PORT SECONDS UP DOWN BOARDS   poll the hall's /metrics (parsed by
                                    prometheus_client) until every node of UP (comma-separated)
                                    is up 1, every node of DOWN up 0, and every NODE:BOARD of
                                    BOARDS has its board series; prints the counts
  multihost.py hall-command PORT PASSWORD BOARD STATUS TEXT   an arbiter command through the
                                    hall: expects HTTP STATUS and TEXT in the answer
Needs paho-mqtt and prometheus-client (pinned by the shell script, in a venv under
~/.cache/boardbridge).
"""

import json
import os
import sys
import time

BASE = "boardbridge"


def record(port, path):
    import paho.mqtt.client as mqtt

    out = open(path, "a", buffering=1)

    def on_connect(client, userdata, flags, reason, properties=None):
        out.write(json.dumps({"t": time.time(), "event": "connected", "session": bool(flags.session_present)}) + "\n")
        for topic in (f"{BASE}/+/move", f"{BASE}/+/availability", f"{BASE}/+/response",
                      f"{BASE}/bridge/+/state", f"{BASE}/bridge/+/info", f"{BASE}/bridge/+/response/#",
                      f"{BASE}-brokers/+/uplink", "homeassistant/sensor/+/+/config"):
            client.subscribe(topic, qos=1)

    def on_message(client, userdata, message):
        out.write(json.dumps({"t": time.time(), "topic": message.topic, "retain": bool(message.retain),
                              "payload": message.payload.decode("utf-8", "replace")}) + "\n")

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="hall-recorder", clean_session=False,
                         protocol=mqtt.MQTTv311)
    if os.environ.get("MQTT_USERNAME"):
        client.username_pw_set(os.environ["MQTT_USERNAME"], os.environ.get("MQTT_PASSWORD"))
    client.on_connect = on_connect
    client.on_message = on_message
    client.reconnect_delay_set(1, 2)
    while True:
        try:
            client.connect("127.0.0.1", port, keepalive=10)
            break
        except OSError:
            time.sleep(0.2)
    client.loop_forever(retry_first_connection=True)


def publish(port, room, boards, plies):
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"load-{room}", protocol=mqtt.MQTTv311)
    client.max_inflight_messages_set(100)
    client.max_queued_messages_set(0)
    client.connect("127.0.0.1", port, keepalive=30)
    client.loop_start()
    files = "abcdefgh"
    pending = []
    pgn = {}
    for ply in range(1, plies + 1):
        for board in range(1, boards + 1):
            name = f"{BASE}/load-{room}-b{board}"
            uci = files[ply % 8] + "2" + files[ply % 8] + "4"
            fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            move = {"uci": uci, "san": uci[2:], "ply": ply, "move_number": (ply + 1) // 2,
                    "color": "white" if ply % 2 else "black", "fen": fen,
                    "clock": {"white": None, "black": None}, "timestamp": "2026-12-01T00:00:00.000Z"}
            state = {"board": f"load-{room}-b{board}", "name": "Load", "family": "chessnut", "model": "Chessnut Air",
                     "address": None, "adapter": "hci0", "connection": {"state": "ready"}, "fen": fen,
                     "turn": "black", "ply": ply, "last_move": {"uci": uci, "san": uci[2:]},
                     "sync": {"state": "in_sync", "squares": [], "reason": None},
                     "game": {"event": "Load", "round": "1", "white": "A", "black": "B"}, "result": "*",
                     "updated": "2026-12-01T00:00:00.000Z"}
            pgn[board] = pgn.get(board, '[Event "Load"]\n\n') + f"{(ply + 1) // 2}. {uci[2:]} "
            pending.append(client.publish(name + "/move", json.dumps(move), qos=1))
            pending.append(client.publish(name, json.dumps(state), qos=1, retain=True))
            pending.append(client.publish(name + "/pgn", pgn[board], qos=1, retain=True))
    for info in pending:
        info.wait_for_publish(60)
    client.loop_stop()
    client.disconnect()
    return 0


def messages(path):
    try:
        f = open(path)
    except FileNotFoundError:
        return  # the recorder has not connected yet
    with f:
        for line in f:
            try:
                item = json.loads(line)
            except ValueError:
                continue  # a line being written
            if "topic" in item:
                yield item


def payload_json(item):
    try:
        return json.loads(item["payload"])
    except ValueError:
        return None


def board_moves(path, board):
    """(raw, distinct in arrival order) moves of board; a move is its (ply, uci)."""
    raw, seen, distinct = 0, set(), []
    for item in messages(path):
        if item["topic"] == f"{BASE}/{board}/move":
            move = payload_json(item) or {}
            raw += 1
            key = (move.get("ply"), move.get("uci"))
            if key not in seen:
                seen.add(key)
                distinct.append(key)
    return raw, distinct


def last(path, topic):
    found = None
    for item in messages(path):
        if item["topic"] == topic:
            found = item
    return found


# Checks for `wait`: each returns True when it holds.
def check_moves(path, board, count):
    return len(board_moves(path, board)[1]) >= int(count)


def check_all_moves(path, count, *boards):
    """Every board has count distinct moves (one pass over the log)."""
    want, seen = set(f"{BASE}/{b}/move" for b in boards), {}
    for item in messages(path):
        if item["topic"] in want:
            move = payload_json(item) or {}
            seen.setdefault(item["topic"], set()).add((move.get("ply"), move.get("uci")))
    return all(len(seen.get(topic, ())) >= int(count) for topic in want)


def check_state(path, topic, state):
    item = last(path, topic)
    return item is not None and (payload_json(item) or {}).get("state") == state


def check_response(path, topic, transaction):
    return any(item["topic"] == topic and str((payload_json(item) or {}).get("transaction")) == transaction
               for item in messages(path))


def check_problem(path, node, problem, detail):
    """Some info of node lists the problem (detail: the other node or '-')."""
    for item in messages(path):
        if item["topic"] == f"{BASE}/bridge/{node}/info":
            for entry in (payload_json(item) or {}).get("problems") or []:
                if entry.get("problem") == problem and detail in ("-", entry.get("node")):
                    return True
    return False


def check_reporters(path, node, problem, count):
    """At least count distinct instances of node published an info listing the problem."""
    instances = set()
    for item in messages(path):
        if item["topic"] == f"{BASE}/bridge/{node}/info":
            info = payload_json(item) or {}
            if any(p.get("problem") == problem for p in info.get("problems") or []):
                instances.add(info.get("instance"))
    return len(instances) >= int(count)


def check_no_problem(path, node, problem):
    """The last info of node lists no such problem."""
    item = last(path, f"{BASE}/bridge/{node}/info")
    info = payload_json(item) if item else None
    return info is not None and all(p.get("problem") != problem for p in info.get("problems") or [])


CHECKS = {"moves": check_moves, "all-moves": check_all_moves, "state": check_state, "response": check_response, "problem": check_problem,
          "reporters": check_reporters,
          "no-problem": check_no_problem}


def wait(path, seconds, check, args):
    deadline = time.time() + float(seconds)
    while time.time() < deadline:
        if CHECKS[check](path, *args):
            return 0
        time.sleep(0.3)
    print(f"multihost: timed out after {seconds} s waiting for {check} {' '.join(args)}", file=sys.stderr)
    return 1


def verify(path, plies, moves, boards):
    plies, failed, total_raw, total_distinct = int(plies), False, 0, 0
    expected = None if moves == "-" else [(i + 1, uci) for i, uci in enumerate(moves.split(","))][:plies]
    for board in boards:
        raw, distinct = board_moves(path, board)
        total_raw += raw
        total_distinct += len(distinct)
        order = [ply for ply, _ in distinct]
        ok = order == list(range(1, plies + 1)) and (expected is None or distinct == expected)
        failed |= not ok
        print(f"multihost: {board}: {raw} move messages, {raw - len(distinct)} duplicates, "
              f"{len(distinct)} distinct moves, plies {order[:1]}..{order[-1:]} "
              f"{'in order, each once' + (', the moves played' if expected else '') if ok else 'WRONG: expected 1..' + str(plies) + ', got ' + str(distinct)}")
    print(f"multihost: all boards: {total_raw} move messages, {total_distinct} distinct, "
          f"{len(boards) * plies} expected")
    return 1 if failed else 0


def split(text):
    return [item for item in text.split(",") if item and item != "-"]


def hall_metrics(port, seconds, up, down, boards):
    import urllib.request
    from prometheus_client.parser import text_string_to_metric_families
    deadline, missing = time.time() + float(seconds), ["no scrape yet"]
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
                text = response.read().decode()
        except OSError as error:
            missing = [f"no answer: {error}"]
            time.sleep(0.5)
            continue
        samples = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
        missing = [f"{node} up" for node in split(up) if samples.get(("boardbridge_up", frozenset({("node", node)}))) != 1]
        missing += [f"{node} down" for node in split(down)
                    if samples.get(("boardbridge_up", frozenset({("node", node)}))) != 0]
        for entry in split(boards):
            node, board = entry.split(":", 1)
            labels = frozenset({("node", node), ("board", board)})
            if ("boardbridge_board_stalled", labels) not in samples or \
                    ("boardbridge_board_reconnects_total", labels) not in samples:
                missing.append(f"{node}:{board} series")
        if not missing:
            listed = sorted({dict(labels)["board"] for name, labels in samples if name == "boardbridge_board_stalled"})
            print(f"multihost: the central hall's /metrics: {len(samples)} samples, nodes up {split(up) or '-'}, "
                  f"down {split(down) or '-'}, boards {', '.join(listed)}", file=sys.stderr)
            return 0
        time.sleep(0.5)
    print(f"multihost: timed out after {seconds} s waiting for the hall's /metrics: {', '.join(missing)}", file=sys.stderr)
    return 1


def hall_command(port, password, board, status, text):
    import base64
    import urllib.error
    import urllib.request
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/boards/{board}/command", method="POST",
                                     data=json.dumps({"takeback": 1}).encode())
    request.add_header("Authorization", "Basic " + base64.b64encode(f"arbiter:{password}".encode()).decode())
    request.add_header("X-BoardBridge-Hall", "1")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            code, body = response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        code, body = error.code, error.read().decode()
    if code != int(status) or text not in body:
        print(f"multihost: the hall answered {code} {body.strip()!r} for {board}, expected {status} {text!r}",
              file=sys.stderr)
        return 1
    print(f"multihost: a command for {board} through the central hall: {code} {body.strip()}", file=sys.stderr)
    return 0


def main(argv):
    command = argv[1]
    if command == "record":
        return record(int(argv[2]), argv[3])
    if command == "publish":
        return publish(int(argv[2]), argv[3], int(argv[4]), int(argv[5]))
    if command == "wait":
        return wait(argv[2], argv[3], argv[4], argv[5:])
    if command == "moves":
        print(len(board_moves(argv[2], argv[3])[1]))
        return 0
    if command == "verify":
        return verify(argv[2], argv[3], argv[4], argv[5:])
    if command == "hall-metrics":
        return hall_metrics(int(argv[2]), argv[3], argv[4], argv[5], argv[6])
    if command == "hall-command":
        return hall_command(int(argv[2]), argv[3], argv[4], argv[5], argv[6])
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
