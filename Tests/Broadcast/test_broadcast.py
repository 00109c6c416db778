"""A broadcast round end to end: 16 boardsim boards of five families on a private
dbus-daemon, served by two bridge processes (nodes node-a and node-b) through one real
mosquitto, and the real `boardbridge hall` broadcasting round 1 from a pairings CSV whose
board numbers are not the boards' order. Checks, with python-chess (pinned in
Tests/Broadcast/requirements.txt):

- "start round" sends every board its new_game (players, round, board number, time control);
- every PGN served (games.pgn, each game-<n>.pgn) and written into files_dir parses, lists
  the games in board order with `Round "1.<n>"`, and replays to the board's FEN; its moves
  are the moves played, its [%clk] comments the bridge's, and WhiteClock / BlackClock the
  board's clocks;
- round.json lists the pairings in board order;
- a poll with If-None-Match gets 304 until a move, then 200 with a new ETag;
- a silent board of the running round becomes an orphan on MQTT (retained) and in
  /api/broadcast.

Run by deploy/test-broadcast.sh (which makes the venv); BOARDBRIDGE_BIN_DIR names the folder
with boardbridge and boardsim. Every process is started here and stopped by its PID.
"""
import base64
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import chess
import chess.pgn

BIN = os.environ["BOARDBRIDGE_BIN_DIR"]
PASSWORD = "arbiter-secret-1"
FAMILIES = [
    ("chessnut", "Chessnut Air"), ("millennium", "MILLENNIUM CHESS"), ("pegasus", "DGT_Pegasus"),
    ("chessup", "ChessUp"), ("squareoff", "Squareoff Pro"),
]
# id, family, address, advertised name, node
BOARDS = []
for index in range(16):
    family, name = FAMILIES[index % len(FAMILIES)]
    BOARDS.append((f"b{index + 1:02d}", family, f"C0:FF:EE:00:02:{index + 1:02X}", f"{name} {index + 1}",
                   "node-a" if index < 8 else "node-b"))
NAME = {b[0]: b[3] for b in BOARDS}
# Board numbers in the round: reversed against the board ids, so board order is not id order.
NUMBER = {b[0]: 16 - i for i, b in enumerate(BOARDS)}
OPENINGS = [
    ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"], ["d2d4", "g8f6", "c2c4", "e7e6"],
    ["c2c4", "e7e5", "b1c3"], ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4"], ["g1f3", "d7d5"],
    ["e2e4", "e7e6", "d2d4", "d7d5", "b1c3", "f8b4", "e4e5"], ["d2d4", "d7d5", "c2c4"], ["e2e4"],
]


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


def wait_for(predicate, timeout, what, interval=0.1):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except Exception as error:  # a restarting service, a half-written answer
            last = error
        if last and not isinstance(last, Exception):
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


class Stack:
    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="boardbridge-broadcast.")
        self.bus = f"unix:path={self.work}/bus"
        self.mqtt_port = free_port()
        self.http_port = free_port()
        self.files = os.path.join(self.work, "relay")
        self.relay_port = free_port()
        self.relay_log = os.path.join(self.work, "relay-requests.jsonl")
        self.processes = {}

    def start(self, name, argv, env=None):
        log = open(os.path.join(self.work, name + ".log"), "ab")
        popen = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 env=None if env is None else {**os.environ, **env})
        self.processes[name] = (popen, log)
        return popen

    def stop(self, name):
        popen, log = self.processes.pop(name)
        if popen.poll() is None:
            os.kill(popen.pid, signal.SIGTERM)
            try:
                popen.wait(20)
            except subprocess.TimeoutExpired:
                os.kill(popen.pid, signal.SIGKILL)
                popen.wait()
        log.close()

    def stop_all(self):
        for name in reversed(list(self.processes)):
            self.stop(name)

    def ctl(self, *args):
        out = subprocess.run([os.path.join(BIN, "boardsim"), "ctl", "--bus", self.bus, *args],
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise AssertionError(f"boardsim ctl {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    def start_world(self):
        with open(os.path.join(self.work, "bus.conf"), "w") as f:
            f.write('<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"\n'
                    ' "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">\n'
                    f"<busconfig><type>session</type><listen>{self.bus}</listen><auth>EXTERNAL</auth>"
                    '<policy context="default"><allow own="*"/><allow send_destination="*"/>'
                    '<allow receive_sender="*"/></policy></busconfig>\n')
        self.start("dbus-daemon", ["dbus-daemon", f"--config-file={self.work}/bus.conf", "--nofork"])
        wait_for(lambda: os.path.exists(f"{self.work}/bus"), 10, "the private bus")
        argv = [os.path.join(BIN, "boardsim"), "--bus", self.bus, "--quiet"]
        for _, family, address, name, _ in BOARDS:
            argv += ["--board", f"family={family},address={address},name={name}"]
        self.start("boardsim", argv)
        wait_for(lambda: self.ctl("list") is not None, 15, "boardsim owning org.bluez", interval=0.3)
        conf = os.path.join(self.work, "mosquitto.conf")
        with open(conf, "w") as f:
            f.write(f"listener {self.mqtt_port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
            if os.getuid() == 0:
                f.write("user root\n")
        self.start("mosquitto", ["mosquitto", "-c", conf])
        wait_for(lambda: port_open(self.mqtt_port), 10, "mosquitto")
        for node in ("node-a", "node-b"):
            self.start_bridge(node)
        stub = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "CurlTests", "relay_stub.py")
        self.start("relay", [sys.executable, stub, str(self.relay_port), self.relay_log])
        wait_for(lambda: port_open(self.relay_port), 10, "the relay stub")
        self.start_hall()

    def start_bridge(self, node):
        lines = ["mqtt:", f"  url: mqtt://127.0.0.1:{self.mqtt_port}", f"node: {node}",
                 f"state_directory: {self.work}/state-{node}", "game:", "  desync_grace: 0.3",
                 "reconnect:", "  max_attempts: 10", "  delays: [1.5]", "boards:"]
        for board_id, family, address, name, board_node in BOARDS:
            if board_node == node:
                lines += [f"  - id: {board_id}", f"    name: Board {board_id[1:]}", f"    address: {address}",
                          f"    family: {family}"]
        os.makedirs(f"{self.work}/state-{node}", exist_ok=True)
        path = os.path.join(self.work, f"bridge-{node}.yaml")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.start(f"bridge-{node}", [os.path.join(BIN, "boardbridge"), "run", "--config", path, "--bus", self.bus])

    def start_hall(self):
        pairings = os.path.join(self.work, "round1.csv")
        with open(pairings, "w") as f:
            f.write("board,board_id,white,white_title,white_fide_id,white_rating,black,black_rating\n")
            for board_id, *_ in BOARDS:
                n = NUMBER[board_id]
                white = "Bad, Move" if n == 16 else f"White{n:02d}, Player"
                f.write(f'{n},{board_id},"{white}",{"GM" if n == 1 else ""},{1500000 + n},{2700 - n},'
                        f'"Black{n:02d}, Player",{2600 - n}\n')
        path = os.path.join(self.work, "hall.yaml")
        with open(path, "w") as f:
            f.write(f"mqtt:\n  url: mqtt://127.0.0.1:{self.mqtt_port}\nhall:\n  address: 127.0.0.1\n"
                    f"  port: {self.http_port}\n  arbiter_password: {PASSWORD}\n  broadcast:\n"
                    f"    orphan_after: 10\n    rounds:\n      - round: '1'\n        pairings_file: {pairings}\n"
                    f"        event: Weekend Open\n        site: Test Hall\n        date: 2026.12.05\n"
                    f"        time_control: 5400+30\n        files_dir: {self.files}\n"
                    f"        push:\n          url: http://127.0.0.1:{self.relay_port}/push/1\n"
                    f"          token_env: RELAY_TOKEN\n")
        self.start("hall", [os.path.join(BIN, "boardbridge"), "hall", "--config", path], env={"RELAY_TOKEN": "good"})
        wait_for(lambda: port_open(self.http_port), 15, "the hall listening")

    def http(self, path, method="GET", headers=None, password=None):
        request = urllib.request.Request(f"http://127.0.0.1:{self.http_port}{path}", method=method, data=None)
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

    def board(self, board_id):
        status, _, body = self.http(f"/api/boards/{board_id}")
        assert status == 200, (board_id, status, body)
        return json.loads(body)


def read_games(text):
    games = []
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors, game.errors
        games.append(game)
    return games


def check_game(game, board_id, played, detail):
    """The served game against what was played and the board's state and record."""
    n = NUMBER[board_id]
    headers = game.headers
    assert headers["Round"] == f"1.{n}", (board_id, headers["Round"])
    assert headers["White"] == ("Bad, Move" if n == 16 else f"White{n:02d}, Player"), headers["White"]
    assert headers["Black"] == f"Black{n:02d}, Player", headers["Black"]
    assert headers["Event"] == "Weekend Open" and headers["TimeControl"] == "5400+30", dict(headers)
    assert headers["WhiteFideId"] == str(1500000 + n) and headers["WhiteElo"] == str(2700 - n), dict(headers)
    assert headers["GameId"].startswith("1-"), headers["GameId"]
    moves = [move.uci() for move in game.mainline_moves()]
    assert moves == played, (board_id, moves, played)
    final = game.end().board()
    state = detail["state"]
    # The placement, side to move and castling rights (python-chess writes an en-passant square only
    # when a capture is legal; the bridge always does).
    assert final.fen().split(" ")[:3] == state["fen"].split(" ")[:3], (board_id, final.fen(), state["fen"])
    # Clocks: every move carries the bridge's [%clk], and the tags the board's clocks now.
    record = chess.pgn.read_game(io.StringIO(detail["pgn"]))
    bridge_clocks = [node.clock() for node in record.mainline()]
    served_clocks = [node.clock() for node in game.mainline()]
    assert all(c is not None for c in served_clocks), (board_id, served_clocks)
    assert [round(c, 1) for c in served_clocks] == [round(c, 1) for c in bridge_clocks], (
        board_id, served_clocks, bridge_clocks)
    for color in ("white", "black"):
        tag = headers.get(color.capitalize() + "Clock")
        expected = state["clock"][color]
        assert tag is not None, (board_id, color, dict(headers))
        h, m, s = tag.split(":")
        assert abs(int(h) * 3600 + int(m) * 60 + float(s) - expected) < 0.06, (board_id, color, tag, expected)


def main():
    for tool in ("dbus-daemon", "mosquitto", "mosquitto_sub"):
        if shutil.which(tool) is None:
            sys.exit(f"test-broadcast: {tool} missing (./deploy/install-deps.sh)")
    stack = Stack()
    passed = []
    try:
        stack.start_world()
        wait_for(lambda: all(stack.board(b[0])["connection"]["state"] == "ready" for b in BOARDS), 120,
                 "all 16 boards ready")
        status, _, body = stack.http("/broadcast/1/games.pgn")
        assert status == 200, status
        assert [g.headers["Round"] for g in read_games(body.decode())] == [f"1.{n}" for n in range(1, 17)]
        status, _, body = stack.http("/api/broadcast/1/start", method="POST")
        assert status == 403, status
        status, _, body = stack.http("/api/broadcast/1/start", method="POST", password=PASSWORD)
        assert status == 202, (status, body)
        assert json.loads(body)["sent"] == 16, body

        def started(board_id):
            game = stack.board(board_id)["state"]["game"]
            n = NUMBER[board_id]
            return game["white"] == ("Bad, Move" if n == 16 else f"White{n:02d}, Player") and str(game["round"]) == "1"

        wait_for(lambda: all(started(b[0]) for b in BOARDS), 30, "every board's new_game from the round")
        passed.append("start round: every board got its new_game")

        played = {}
        for index, (board_id, *_rest) in enumerate(BOARDS):
            played[board_id] = OPENINGS[index % len(OPENINGS)]
            stack.ctl("play", NAME[board_id], *played[board_id])
        wait_for(lambda: all(stack.board(b[0])["state"]["ply"] == len(played[b[0]]) for b in BOARDS), 60,
                 "every move on the boards")
        details = {b[0]: stack.board(b[0]) for b in BOARDS}
        status, headers, body = wait_for(
            lambda: (lambda r: r if r[0] == 200 and all(
                len(list(g.mainline_moves())) == len(played[b]) for g, b in zip(
                    read_games(r[2].decode()), sorted(NUMBER, key=NUMBER.get))) else None)(
                stack.http("/broadcast/1/games.pgn")), 30, "games.pgn with every move")
        games = read_games(body.decode())
        order = sorted(NUMBER, key=NUMBER.get)
        for game, board_id in zip(games, order):
            check_game(game, board_id, played[board_id], details[board_id])
        passed.append("games.pgn: 16 games in board order, moves, FENs and clocks as played")

        for n, board_id in enumerate(order, start=1):
            status, _, single = stack.http(f"/broadcast/1/game-{n}.pgn")
            assert status == 200, (n, status)
            (game,) = read_games(single.decode())
            check_game(game, board_id, played[board_id], details[board_id])
        passed.append("game-<n>.pgn: each game as played")

        status, _, index = stack.http("/broadcast/1/round.json")
        pairings = json.loads(index)["pairings"]
        assert [p["white"]["lname"] for p in pairings] == [f"White{n:02d}" for n in range(1, 16)] + ["Bad"], pairings
        passed.append("round.json lists the boards in board order")

        def files_match():
            for name in ["games.pgn", "round.json"] + [f"game-{n}.pgn" for n in range(1, 17)]:
                with open(os.path.join(stack.files, name), "rb") as f:
                    path = f"/broadcast/1/{name}"
                    if f.read() != stack.http(path)[2]:
                        return False
            return True

        wait_for(files_match, 10, "files_dir holding what HTTP serves")
        passed.append("files_dir: the same files as HTTP")

        etag = headers["ETag"]
        status, again_headers, again = stack.http("/broadcast/1/games.pgn", headers={"If-None-Match": etag})
        assert status == 304 and again == b"" and again_headers["ETag"] == etag, (status, again_headers)
        mover = order[0]
        stack.ctl("play", NAME[mover], "h7h6" if len(played[mover]) % 2 else "h2h3")
        wait_for(lambda: stack.http("/broadcast/1/games.pgn", headers={"If-None-Match": etag})[0] == 200, 15,
                 "a 200 after a move")
        status, new_headers, _ = stack.http("/broadcast/1/games.pgn", headers={"If-None-Match": etag})
        assert new_headers["ETag"] != etag, new_headers
        passed.append("If-None-Match: 304 until a move, then 200 with a new ETag")

        # Push: the relay got the round as served, with a bearer token, and its per-game error is shown.
        def last_push():
            with open(stack.relay_log) as f:
                pushes = [json.loads(line) for line in f if line.strip()]
            pushes = [p for p in pushes if p.get("path") == "/push/1"]
            return pushes[-1] if pushes else None

        served = stack.http("/broadcast/1/games.pgn")[2].decode()
        wait_for(lambda: (last_push() or {}).get("body") == served, 20, "the relay holding the round as served")
        pushed = read_games(last_push()["body"])
        assert len(pushed) == 16, len(pushed)
        for game, board_id in zip(pushed, order):
            moves = [move.uci() for move in game.mainline_moves()]
            assert moves[:len(played[board_id])] == played[board_id], (board_id, moves)

        def push_error():
            report = json.loads(stack.http("/api/broadcast")[2])["rounds"][0].get("push_report") or {}
            return report if report.get("game_errors") else None

        report = wait_for(push_error, 20, "the relay's per-game error in /api/broadcast")
        assert report["status"] == 200 and report["game_errors"][0]["players"].startswith("Bad, Move"), report
        with open(os.path.join(stack.work, "hall.log"), errors="replace") as f:
            assert "relay refused a game" in f.read()
        passed.append("push: the round as served, per-game errors in /api/broadcast and the log")

        # Orphans: nothing moves for orphan_after (10 s); every board of the running round is silent.
        topic = "boardbridge/bridge/hall/broadcast/1/orphans"

        def orphans_on_mqtt():
            out = subprocess.run(["mosquitto_sub", "-p", str(stack.mqtt_port), "-t", topic, "-C", "1", "-W", "2"],
                                 capture_output=True, text=True, timeout=10)
            alert = json.loads(out.stdout) if out.stdout.strip() else None
            return alert if alert and len(alert["orphans"]) >= 8 else None

        alert = wait_for(orphans_on_mqtt, 60, "the retained orphan alert", interval=1)
        assert alert["round"] == "1" and alert["orphan_after"] == 10, alert
        status, _, body = stack.http("/api/broadcast")
        assert json.loads(body)["rounds"][0]["orphans"], body
        passed.append(f"orphan boards: {len(alert['orphans'])} on MQTT (retained) and in /api/broadcast")
    except BaseException:
        print(f"test-broadcast: FAILED; logs in {stack.work}", file=sys.stderr)
        stack.stop_all()
        for name in os.listdir(stack.work):
            if name.endswith(".log"):
                with open(os.path.join(stack.work, name), errors="replace") as f:
                    tail = f.read()[-3000:]
                print(f"--- {name} ---\n{tail}", file=sys.stderr)
        raise
    stack.stop_all()
    shutil.rmtree(stack.work, ignore_errors=True)
    for line in passed:
        print(f"test-broadcast: ok  {line}", file=sys.stderr)


if __name__ == "__main__":
    main()
