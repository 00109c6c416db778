"""A stand-in for a relay's HTTP endpoints, for the Curl and broadcast push tests.

Serves on 127.0.0.1 at the port given as the first argument:
- POST /push/<round>: needs `Authorization: Bearer good`; answers like lichess's push API
  ({"games":[{"tags":{...},"moves":n} or {"tags":{...},"error":"..."}]}), a game whose
  White is "Bad, Move" refused; /push/limited answers 429 with Retry-After: 7.
- GET /echo: 200 with the request's method, headers and body length as JSON.
- GET /big: a 2 MiB body. GET /slow: answers after 5 s. GET /status/<n>: status n.
Every request is appended as a JSON line to the log file given as the second argument.
"""
import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, headers=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def record(self, body):
        with open(sys.argv[2], "a") as log:
            log.write(json.dumps({"method": self.command, "path": self.path,
                                  "headers": dict(self.headers), "body": body}) + "\n")

    def do_GET(self):
        self.record("")
        if self.path == "/echo":
            self.answer(200, json.dumps({"method": "GET", "x_test": self.headers.get("X-Test")}),
                        [("Content-Type", "application/json"), ("X-Reply", "yes")])
        elif self.path == "/big":
            self.answer(200, b"x" * (2 << 20))
        elif self.path == "/slow":
            time.sleep(5)
            self.answer(200, "late")
        elif self.path.startswith("/status/"):
            self.answer(int(self.path.split("/")[2]), "status")
        else:
            self.answer(404, "not found")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode("utf-8", "replace")
        self.record(body)
        if self.path == "/echo":
            self.answer(200, json.dumps({"method": "POST", "length": length}))
            return
        if not self.path.startswith("/push/"):
            self.answer(404, "not found")
            return
        if self.headers.get("Authorization") != "Bearer good":
            self.answer(401, json.dumps({"error": "No such token"}))
            return
        if self.path == "/push/limited":
            self.answer(429, json.dumps({"error": "Too many requests"}), [("Retry-After", "7")])
            return
        games = []
        for chunk in re.split(r"\n\n(?=\[)", body.strip()):
            tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]$', chunk, re.M))
            moves = len(re.findall(r"\b[a-hKQRBNO][^\s{}]*", chunk.split("\n\n", 1)[-1])) if "\n\n" in chunk else 0
            if tags.get("White") == "Bad, Move":
                games.append({"tags": tags, "error": "Invalid move: Nxe5"})
            else:
                games.append({"tags": tags, "moves": moves})
        self.answer(200, json.dumps({"games": games}), [("Content-Type", "application/json")])


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
