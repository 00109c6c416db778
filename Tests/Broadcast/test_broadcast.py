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
import io
import json
import os
import shutil
import subprocess
import sys

import chess
import chess.pgn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "PythonSupport"))
from world import World, free_port, port_open, wait_for  # noqa: E402

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


class Stack(World):
    def __init__(self):
        super().__init__("boardbridge-broadcast.")
        self.files = os.path.join(self.work, "relay")
        self.relay_port = free_port()
        self.relay_log = os.path.join(self.work, "relay-requests.jsonl")

    def start_world(self):
        self.start_boards_and_broker([(family, address, name) for _, family, address, name, _ in BOARDS])
        for node in ("node-a", "node-b"):
            self.start_bridge(
                node, [(b, family, address, None) for b, family, address, _, n in BOARDS if n == node])
        stub = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "CurlTests", "relay_stub.py")
        self.start("relay", [sys.executable, stub, str(self.relay_port), self.relay_log])
        wait_for(lambda: port_open(self.relay_port), 10, "the relay stub")
        self.start_hall()

    def start_hall(self):
        pairings = os.path.join(self.work, "round1.csv")
        with open(pairings, "w") as f:
            f.write("board,board_id,white,white_title,white_fide_id,white_rating,black,black_rating\n")
            for board_id, *_ in BOARDS:
                n = NUMBER[board_id]
                white = "Bad, Move" if n == 16 else f"White{n:02d}, Player"
                f.write(f'{n},{board_id},"{white}",{"GM" if n == 1 else ""},{1500000 + n},{2700 - n},'
                        f'"Black{n:02d}, Player",{2600 - n}\n')
        self.start_hall_with(
            [f"arbiter_password: {PASSWORD}", "broadcast:", "  orphan_after: 10", "  rounds:", "    - round: '1'",
             f"      pairings_file: {pairings}", "      event: Weekend Open", "      site: Test Hall",
             "      date: 2026.12.05", "      time_control: 5400+30", f"      files_dir: {self.files}",
             "      push:", f"        url: http://127.0.0.1:{self.relay_port}/push/1",
             "        token_env: RELAY_TOKEN"],
            env={"RELAY_TOKEN": "good"})

    def http(self, path, method="GET", headers=None, password=None):
        return self.request(path, method=method, headers=headers, password=password)

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
    # The tags hold the clocks as they were after the last move: the side that moved, its
    # clock then; the side to move, its clock as its turn began (its own last [%clk], or the
    # base time). The state's reading of a running clock is later (a state published after
    # the move while it ran): only a clock that is not running must equal it.
    base = float(headers["TimeControl"].split("+")[0])
    for color in ("white", "black"):
        tag = headers.get(color.capitalize() + "Clock")
        assert tag is not None, (board_id, color, dict(headers))
        h, m, s = tag.split(":")
        value = int(h) * 3600 + int(m) * 60 + float(s)
        mover = chess.WHITE if color == "white" else chess.BLACK
        own = [node.clock() for node in record.mainline() if node.turn() != mover]
        expected = own[-1] if own else base
        assert abs(value - expected) < 0.06, (board_id, color, tag, expected)
        if state["clock"]["running"] == color:
            assert value >= state["clock"][color] - 0.06, (board_id, color, tag, state["clock"])
        else:
            assert abs(value - state["clock"][color]) < 0.06, (board_id, color, tag, state["clock"])


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

        # A gap resolved by the arbiter (issue #30): b06's link drops while Black and White play
        # 7... a6 8. h3 h6; the Chessnut shows a position 7... h6 8. h3 a6 reaches too, so the bridge
        # reports missed moves; `resolve` over MQTT enters the line, and the broadcast carries it.
        gap_board, gap = "b06", ["a7a6", "h2h3", "h7h6"]
        stack.ctl("fail-connects", NAME[gap_board], "1")
        stack.ctl("drop", NAME[gap_board])
        stack.ctl("play", NAME[gap_board], *gap)
        wait_for(lambda: stack.board(gap_board)["state"]["sync"].get("reason") == "missed_moves", 60,
                 "b06's missed moves")
        lines = stack.board(gap_board)["state"]["sync"]["lines"]
        assert sorted(line["uci"] for line in lines) == sorted([gap, ["h7h6", "h2h3", "a7a6"]]), lines
        ply = stack.board(gap_board)["state"]["ply"]
        subprocess.run(["mosquitto_pub", "-p", str(stack.mqtt_port), "-q", "1", "-t", f"boardbridge/{gap_board}/set",
                        "-m", json.dumps({"resolve": {"moves": ["a6", "h3", "h6"], "ply": ply}})], check=True, timeout=10)
        played[gap_board] = played[gap_board] + gap
        wait_for(lambda: stack.board(gap_board)["state"]["ply"] == len(played[gap_board]), 15, "b06's resolved moves")
        n = NUMBER[gap_board]
        (game,) = wait_for(lambda: (lambda games: games if len(list(games[0].mainline_moves())) == len(
            played[gap_board]) else None)(read_games(stack.http(f"/broadcast/1/game-{n}.pgn")[2].decode())), 15,
            "the resolved moves in the broadcast")
        check_game(game, gap_board, played[gap_board], stack.board(gap_board))
        passed.append("a gap resolved over MQTT: the moves in the broadcast, parsed and replayed by python-chess")

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
