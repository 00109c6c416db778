"""Debian's bluetoothctl (a real BlueZ client, unchanged) walked through boardsim, every family.

Run by deploy/test-realclients.sh with DBUS_SYSTEM_BUS_ADDRESS pointing at a private bus
where boardsim owns org.bluez. One interactive bluetoothctl: list, show, scan, info,
connect, the gatt menu (list-attributes, select-attribute, read, notify on/off,
acquire-notify/release-notify, acquire-write/release-write, write), disconnect, pair,
trust, remove, for each board. Each step waits for the text bluetoothctl prints; the
first that does not come fails the walk, naming it and showing the output.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ESCAPES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|[\x01\x02\r]")


class Walk:
    def __init__(self):
        self.log = tempfile.NamedTemporaryFile("w+", prefix="bluetoothctl-", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            ["bluetoothctl"], stdin=subprocess.PIPE, stdout=self.log, stderr=subprocess.STDOUT, text=True
        )
        self.mark = 0

    def output(self):
        with open(self.log.name, encoding="utf-8", errors="replace") as handle:
            return ESCAPES.sub("", handle.read())

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def expect(self, text, step, timeout=15):
        """Waits for `text` after the previous expectation's match."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.output().find(text, self.mark)
            if found >= 0:
                self.mark = found + len(text)
                print(f"  ok: {step}", flush=True)
                return
            time.sleep(0.05)
        tail = self.output()[self.mark :][-3000:]
        raise AssertionError(f"{step}: no {text!r} within {timeout} s; output since the last step:\n{tail}")

    def step(self, command, text, step, timeout=15):
        self.send(command)
        self.expect(text, step, timeout)

    def close(self):
        if self.process.poll() is None:
            try:
                self.send("quit")
                self.process.stdin.close()
                self.process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        os.unlink(self.log.name)


def walk_board(walk, board, names):
    address, family = board["address"], board["family"]
    name = names[address]
    print(f"{family} {address} '{name}'", flush=True)
    path = "/org/bluez/hci0/dev_" + address.replace(":", "_")
    walk.step("scan on", f"Device {address}", f"{family}: scan finds it")
    walk.step("scan off", "Discovering: no", f"{family}: scan off")
    walk.step(f"info {address}", f"Name: {name}", f"{family}: info names it")
    walk.step(f"connect {address}", "Connection successful", f"{family}: connect", timeout=25)
    walk.expect("ServicesResolved: yes", f"{family}: services resolved")
    walk.step("menu gatt", "Menu gatt:", f"{family}: gatt menu")
    walk.step("list-attributes " + address, path + "/service", f"{family}: list-attributes")
    attributes = walk.output()[walk.mark - 400 :]
    walk.step("back", "Menu main:", f"{family}: back")
    return path, attributes


def gatt_steps(walk, board, objects):
    family = board["family"]
    notify, write = objects["notify"], objects["write"]
    walk.step("menu gatt", "Menu gatt:", f"{family}: gatt menu again")
    walk.step(f"select-attribute {objects['name']}", "]#", f"{family}: select the manufacturer name")
    walk.step("read", "Attribute " + objects["name"] + " Value:", f"{family}: read")
    walk.step(f"select-attribute {notify}", "]#", f"{family}: select the notify characteristic")
    walk.step("notify on", "Notifying: yes", f"{family}: notify on")
    walk.step("notify off", "Notifying: no", f"{family}: notify off")
    walk.step("acquire-notify", "AcquireNotify success", f"{family}: acquire-notify")
    walk.step("release-notify", "NotifyAcquired: no", f"{family}: release-notify")
    walk.step(f"select-attribute {write}", "]#", f"{family}: select the write characteristic")
    walk.step("acquire-write", "AcquireWrite success", f"{family}: acquire-write")
    walk.step("release-write", "WriteAcquired: no", f"{family}: release-write")
    walk.step('write "0x00"', "Attempting to write", f"{family}: write")
    walk.step("back", "Menu main:", f"{family}: back")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--boardsim", required=True)
    parser.add_argument("--bus", required=True)
    parser.add_argument("--boards", required=True, help="JSON list of {family, address}")
    arguments = parser.parse_args()
    boards = json.loads(arguments.boards)
    listing = subprocess.run(
        [arguments.boardsim, "ctl", "--bus", arguments.bus, "list"], capture_output=True, text=True, check=True
    ).stdout
    names = {}
    for line in listing.splitlines():
        entry = json.loads(line)
        if entry.get("Kind") == "board":
            names[entry["Address"]] = entry["Name"]
    walk = Walk()
    try:
        walk.step("list", "Controller ", "list shows the adapter")
        walk.step("show", "Powered: yes", "show: powered")
        walk.step("power off", "Powered: no", "power off")
        walk.step("power on", "Powered: yes", "power on")
        for board in boards:
            path, attributes = walk_board(walk, board, names)
            objects = describe(path, arguments.bus)
            gatt_steps(walk, board, objects)
            family, address = board["family"], board["address"]
            walk.step(f"disconnect {address}", "Connected: no", f"{family}: disconnect")
            walk.step(f"trust {address}", "trust succeeded", f"{family}: trust")
            walk.step(f"pair {address}", "Pairing successful", f"{family}: pair (connects first)", timeout=25)
            walk.step(f"disconnect {address}", "Connected: no", f"{family}: disconnect after pairing")
            walk.step(f"remove {address}", "Device has been removed", f"{family}: remove")
        print("bluetoothctl walk: every family passed", flush=True)
    finally:
        walk.close()


def describe(device_path, bus):
    """The paths of a readable name, a notify and a write characteristic of the board's own
    service, from GetManagedObjects (busctl-free: a tiny dbus-send call)."""
    result = subprocess.run(
        [
            "dbus-send", "--bus=" + bus, "--print-reply", "--dest=org.bluez", "/",
            "org.freedesktop.DBus.ObjectManager.GetManagedObjects",
        ],
        capture_output=True, text=True, check=True,
    ).stdout
    objects = {}
    current = None
    for line in result.splitlines():
        match = re.match(r'\s*object path "([^"]+)"', line)
        if match:
            current = match.group(1)
            objects.setdefault(current, "")
        elif current:
            objects[current] += line + "\n"
    characteristics = {p: text for p, text in objects.items() if p.startswith(device_path + "/") and "/char" in p and "/desc" not in p}

    def find(predicate):
        for path in sorted(characteristics):
            if predicate(characteristics[path]):
                return path
        raise AssertionError(f"no characteristic matching under {device_path}")

    generic = ("00001800", "00001801", "0000180a", "0000180f", "00002a")
    own = lambda text: not any(f'string "{prefix}' in text for prefix in generic)  # noqa: E731
    return {
        "name": find(lambda text: 'string "00002a29' in text),
        "notify": find(lambda text: own(text) and 'string "notify"' in text),
        "write": find(lambda text: own(text) and 'string "write-without-response"' in text),
    }


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"bluetoothctl walk FAILED: {failure}", file=sys.stderr, flush=True)
        sys.exit(1)
