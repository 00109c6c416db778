"""What a clustered broker does across its nodes, measured (deploy/test-cluster.sh).

  cluster.py probe HOST1:PORT HOST2:PORT USER PASSWORD COUNT
      with paho-mqtt, against two nodes of one cluster: COUNT QoS 1 messages published on
      node 1 to a wildcard subscriber on node 2 (duplicates, losses, order); a retained
      message published on node 1 read through a wildcard filter on node 2; a persistent
      session (MQTT 3.1.1 clean session off, MQTT 5 session expiry) subscribed on node 2,
      away while node 1 publishes, resumed on node 2 and then on node 1; a last will of a
      client on node 1 whose socket dies, seen on node 2. Prints one line per finding and
      exits 1 if any of them is not what a broker for BoardBridge must do.
  cluster.py retained HOST1:PORT HOST2:PORT USER PASSWORD FILTER...
      a fresh subscriber on each node: which retained topics of FILTER each node delivers
      (prints the counts and the topics only one node has; exit 0: a finding, not a check)
  cluster.py has-retained HOST:PORT USER PASSWORD TOPIC...
      a fresh subscriber on that node gets a retained message on every TOPIC (exit 1 if not)
  cluster.py verify LOG PLIES BOARD...
      every board's moves in LOG (deploy/multihost.py record): plies 1..PLIES each exactly
      once, in order, counting the raw messages (no duplicate is dropped before counting)
  cluster.py hall-moves PORT PLIES BOARD...
      the hall's /api/boards/<board> events: PLIES moves per board, each once, in order
"""

import json
import socket
import sys
import threading
import time
import uuid

import paho.mqtt.client as mqtt


def address(text):
    host, port = text.rsplit(":", 1)
    return host, int(port)


class Client:
    """A paho client with its received messages in a list (topic, payload, retain)."""

    def __init__(self, where, user, password, client_id=None, clean=True, v5=False, will=None, expiry=None):
        self.received, self.lock, self.connected = [], threading.Lock(), threading.Event()
        self.session_present = None
        protocol = mqtt.MQTTv5 if v5 else mqtt.MQTTv311
        kwargs = {} if v5 else {"clean_session": clean}
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or f"probe-{uuid.uuid4().hex[:8]}",
                                  protocol=protocol, **kwargs)
        self.client.username_pw_set(user, password)
        if will:
            self.client.will_set(will[0], will[1], qos=1, retain=will[2])
        self.client.on_connect = self.on_connect
        self.client.on_message = self.on_message
        host, port = address(where)
        properties = None
        if v5:
            from paho.mqtt.properties import Properties
            from paho.mqtt.packettypes import PacketTypes
            properties = Properties(PacketTypes.CONNECT)
            properties.SessionExpiryInterval = expiry or 0
        if v5:
            self.client.connect(host, port, keepalive=5, clean_start=clean, properties=properties)
        else:
            self.client.connect(host, port, keepalive=5)
        self.client.loop_start()
        if not self.connected.wait(10):
            raise RuntimeError(f"no CONNACK from {where}")

    def on_connect(self, client, userdata, flags, reason, properties=None):
        self.session_present = bool(flags.session_present)
        self.connected.set()

    def on_message(self, client, userdata, message):
        with self.lock:
            self.received.append((message.topic, message.payload.decode(), bool(message.retain)))

    def subscribe(self, topic):
        done = threading.Event()
        self.client.on_subscribe = lambda *args: done.set()
        self.client.subscribe(topic, qos=1)
        if not done.wait(10):
            raise RuntimeError(f"no SUBACK for {topic}")

    def publish_all(self, topic, payloads, retain=False):
        infos = [self.client.publish(topic, p, qos=1, retain=retain) for p in payloads]
        for info in infos:
            info.wait_for_publish(30)

    def messages(self, topic=None):
        with self.lock:
            return [m for m in self.received if topic is None or m[0] == topic]

    def wait_count(self, count, topic=None, seconds=20):
        deadline = time.time() + seconds
        while time.time() < deadline and len(self.messages(topic)) < count:
            time.sleep(0.05)
        time.sleep(0.3)  # late duplicates
        return self.messages(topic)

    def close(self):
        self.client.disconnect()
        self.client.loop_stop()


def sequence_report(payloads, count):
    numbers = [int(p) for p in payloads]
    distinct = set(numbers)
    violations = sum(1 for a, b in zip(numbers, numbers[1:]) if b <= a)
    return {"received": len(numbers), "duplicates": len(numbers) - len(distinct), "lost": count - len(distinct),
            "order_violations": violations}


def probe(node1, node2, user, password, count):
    ok, run = True, uuid.uuid4().hex[:6]

    def finding(name, good, detail):
        nonlocal ok
        ok &= good
        print(f"cluster: probe: {name}: {detail}{'' if good else '  <-- NOT AS NEEDED'}", file=sys.stderr)

    # 1. Cross-node routing, a wildcard filter, QoS 1, order.
    sub = Client(node2, user, password)
    sub.subscribe(f"probe-{run}/+/move")
    pub = Client(node1, user, password)
    started = time.time()
    pub.publish_all(f"probe-{run}/b1/move", [str(i) for i in range(count)])
    got = [p for _, p, _ in sub.wait_count(count)]
    elapsed = time.time() - started
    report = sequence_report(got, count)
    finding("routing node 1 -> node 2", report["lost"] == 0 and report["duplicates"] == 0 and report["order_violations"] == 0,
            f"{count} QoS 1 messages, {report['received']} received, {report['duplicates']} duplicates, "
            f"{report['lost']} lost, {report['order_violations']} order violations, {count / elapsed:.0f} messages/s")
    # 2. Retained, published on node 1, read through a wildcard filter by late subscribers.
    topic = f"probe-{run}/b2/availability"
    pub.publish_all(topic, ["online"], retain=True)
    time.sleep(0.5)
    late = {}
    for name, where in (("node 1", node1), ("node 2", node2)):
        client = Client(where, user, password)
        client.subscribe(f"probe-{run}/+/availability")
        late[name] = [p for t, p, r in client.wait_count(1, seconds=3) if r]
        client.close()
    finding("retained, late subscriber on the publishing node", late["node 1"] == ["online"], f"got {late['node 1']}")
    # ejabberd 23.01: each node indexes the retained topics it has seen published through
    # itself or found at its start; the payloads themselves are replicated.
    print(f"cluster: probe: retained, late subscriber on the other node: got {late['node 2']} "
          f"({'delivered' if late['node 2'] == ['online'] else 'a new retained topic is not delivered by the other node'})",
          file=sys.stderr)
    # 3. Persistent sessions: away while node 1 publishes; resumed on node 2, then on node 1.
    for v5 in (False, True):
        name = "MQTT 5 session expiry 60 s" if v5 else "MQTT 3.1.1 clean session off"
        cid = f"probe-{run}-{'v5' if v5 else 'v311'}"
        topic = f"probe-{run}/{'v5' if v5 else 'v311'}/set"
        away = Client(node2, user, password, client_id=cid, clean=False, v5=v5, expiry=60)
        away.subscribe(topic)
        away.close()
        pub.publish_all(topic, [str(i) for i in range(100)])
        back = Client(node2, user, password, client_id=cid, clean=False, v5=v5, expiry=60)
        got = [p for _, p, _ in back.wait_count(100, topic)]
        report = sequence_report(got, 100)
        finding(f"{name}, resumed on the same node", back.session_present and report["lost"] == 0 and report["order_violations"] == 0,
                f"session present {back.session_present}; 100 queued while away: {report}")
        back.close()
        time.sleep(1)  # an immediate reconnect to the other node can race the session's close
        pub.publish_all(topic, [str(i) for i in range(100, 150)])
        moved = Client(node1, user, password, client_id=cid, clean=False, v5=v5, expiry=60)
        got = [p for _, p, _ in moved.wait_count(50, topic)]
        report = sequence_report([str(int(p) - 100) for p in got], 50)
        finding(f"{name}, resumed on the other node", moved.session_present and report["lost"] == 0,
                f"session present {moved.session_present}; 50 queued while away: {report}")
        moved.close()
    # 4. A last will on node 1 (its socket dies without DISCONNECT), seen on node 2.
    watcher = Client(node2, user, password)
    watcher.subscribe(f"probe-{run}/bridge/+/state")
    doomed = Client(node1, user, password, will=(f"probe-{run}/bridge/n1/state", "offline", True))
    died = time.time()
    doomed.client.socket().shutdown(socket.SHUT_RDWR)
    doomed.client.loop_stop()
    wills = watcher.wait_count(1, seconds=20)
    finding("last will across nodes", [p for _, p, _ in wills] == ["offline"],
            f"node 2 got {[p for _, p, _ in wills]} {time.time() - died:.1f} s after the socket died")
    for c in (sub, pub, watcher):
        c.close()
    return 0 if ok else 1


def retained(node1, node2, user, password, filters):
    seen = {}
    for where in (node1, node2):
        client = Client(where, user, password)
        for topic in filters:
            client.subscribe(topic)
        time.sleep(1.5)
        seen[where] = {topic for topic, _, retain in client.messages() if retain}
        client.close()
    both = seen[node1] | seen[node2]
    print(f"cluster: retained {' '.join(filters)}: {len(both)} topics in all; node 1 delivers {len(seen[node1])}, "
          f"node 2 delivers {len(seen[node2])}", file=sys.stderr)
    for where in (node1, node2):
        missing = sorted(both - seen[where])
        if missing:
            print(f"cluster: retained: a late subscriber on {where} misses {', '.join(missing)}", file=sys.stderr)
    return 0


def has_retained(node, user, password, topics):
    client = Client(node, user, password)
    for topic in topics:
        client.subscribe(topic)
    deadline = time.time() + 10
    while time.time() < deadline:
        missing = set(topics) - {topic for topic, _, retain in client.messages() if retain}
        if not missing:
            break
        time.sleep(0.2)
    client.close()
    if missing:
        print(f"cluster: a late subscriber on {node} got no retained {', '.join(sorted(missing))}", file=sys.stderr)
        return 1
    print(f"cluster: a late subscriber on {node} got all {len(topics)} retained topics", file=sys.stderr)
    return 0


def verify(path, plies, boards):
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import multihost
    plies, failed, totals = int(plies), False, {"raw": 0, "duplicates": 0, "order_violations": 0, "missing": 0}
    sequences = {board: [] for board in boards}
    for item in multihost.messages(path):
        board = item["topic"].split("/")[1] if item["topic"].endswith("/move") else None
        if board in sequences:
            sequences[board].append((multihost.payload_json(item) or {}).get("ply"))
    for board, sequence in sequences.items():
        duplicates = len(sequence) - len(set(sequence))
        violations = sum(1 for a, b in zip(sequence, sequence[1:]) if a is None or b is None or b <= a)
        missing = len(set(range(1, plies + 1)) - set(sequence))
        for key, value in (("raw", len(sequence)), ("duplicates", duplicates), ("order_violations", violations),
                           ("missing", missing)):
            totals[key] += value
        good = duplicates == 0 and violations == 0 and missing == 0 and len(sequence) == plies
        failed |= not good
        print(f"cluster: {board}: {len(sequence)} move messages, {duplicates} duplicates, {violations} order violations, "
              f"{missing} missing{'' if good else '  <-- WRONG: ' + str(sequence)}", file=sys.stderr)
    print(f"cluster: recorder, all boards: {totals['raw']} move messages for {len(boards) * plies} moves, "
          f"{totals['duplicates']} duplicates, {totals['order_violations']} order violations, {totals['missing']} missing",
          file=sys.stderr)
    return 1 if failed else 0


def hall_moves(port, plies, boards):
    import urllib.request
    failed, total = False, 0
    for board in boards:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/boards/{board}", timeout=10) as response:
            events = json.load(response).get("events") or []
        moves = [e for e in events if e.get("event_type") == "move"]
        sequence = [e.get("ply") for e in moves]
        good = sequence == list(range(1, int(plies) + 1))
        failed |= not good
        total += len(sequence)
        if not good:
            print(f"cluster: the hall's {board}: moves {sequence}, expected 1..{plies}; events {events[-3:]}", file=sys.stderr)
    print(f"cluster: the hall: {total} moves over {len(boards)} boards, "
          f"{'each once and in order' if not failed else 'WRONG'}", file=sys.stderr)
    return 1 if failed else 0


def main(argv):
    if argv[1] == "probe":
        return probe(argv[2], argv[3], argv[4], argv[5], int(argv[6]))
    if argv[1] == "retained":
        return retained(argv[2], argv[3], argv[4], argv[5], argv[6:])
    if argv[1] == "has-retained":
        return has_retained(argv[2], argv[3], argv[4], argv[5:])
    if argv[1] == "verify":
        return verify(argv[2], argv[3], argv[4:])
    if argv[1] == "hall-moves":
        return hall_moves(int(argv[2]), argv[3], argv[4:])
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
