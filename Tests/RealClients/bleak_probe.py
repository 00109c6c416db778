"""bleak (a real BlueZ client, unchanged) against boardsim, one board per family.

Run by deploy/test-realclients.sh with DBUS_SYSTEM_BUS_ADDRESS pointing at a private bus
where boardsim owns org.bluez. For each board: scan, connect, services, read, notify with
StartNotify and with AcquireNotify, write with and without response (checked in boardsim's
write log), disconnect, reconnect after an injected "le-connection-abort-by-local"
(bleak retries it), and a connect to a board switched off (fails within bleak's timeout).
Exits non-zero on the first failed check, naming it.
"""

import argparse
import asyncio
import json
import subprocess
import sys

from bleak import BleakClient, BleakScanner
from bleak.exc import BleakError

GENERIC = {"00001800", "00001801", "0000180a", "0000180f"}


def ctl(boardsim, bus, *args):
    result = subprocess.run(
        [boardsim, "ctl", "--bus", bus, *args], capture_output=True, text=True, timeout=30, check=False
    )
    if result.returncode != 0:
        raise AssertionError(f"boardsim ctl {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


def writes(boardsim, bus, address):
    return [json.loads(line) for line in ctl(boardsim, bus, "writes", address).splitlines() if line]


def check(condition, what):
    if not condition:
        raise AssertionError(what)
    print(f"  ok: {what}", flush=True)


async def probe(board, boardsim, bus):
    address, family = board["address"], board["family"]
    print(f"{family} {address}", flush=True)
    device = await BleakScanner.find_device_by_address(address, timeout=10)
    check(device is not None, f"{family}: scan finds {address}")
    async with BleakClient(device, timeout=20) as client:
        check(client.is_connected, f"{family}: connected")
        services = client.services
        own = [s for s in services if s.uuid[:8] not in GENERIC]
        check(own, f"{family}: the family's service is there ({[s.uuid for s in services]})")
        characteristics = [c for s in own for c in s.characteristics]
        write = next(c for c in characteristics if "write-without-response" in c.properties)
        notify = [c for c in characteristics if "notify" in c.properties]
        check(notify, f"{family}: a notify characteristic")
        name = next((c for s in services for c in s.characteristics if c.uuid.startswith("00002a29")), None)
        if name is not None:
            value = await client.read_gatt_char(name)
            check(len(value) > 0, f"{family}: reads the manufacturer name ({bytes(value)!r})")
        battery = next((c for s in services for c in s.characteristics if c.uuid.startswith("00002a19")), None)
        if battery is not None:
            level = await client.read_gatt_char(battery)
            check(len(level) == 1 and level[0] <= 100, f"{family}: reads the battery level ({level[0]}%)")

        received = []
        await client.start_notify(notify[0], lambda _, data: received.append(bytes(data)))
        check(True, f"{family}: start_notify (StartNotify) on {notify[0].uuid}")
        before = len(writes(boardsim, bus, address))
        await client.write_gatt_char(write, b"\x00", response=True)
        await client.write_gatt_char(write, b"\x00", response=False)
        await asyncio.sleep(0.3)
        log = writes(boardsim, bus, address)[before:]
        types = [entry["type"] for entry in log]
        check(types == ["request", "command"], f"{family}: both writes reached the board ({types})")
        await client.stop_notify(notify[0])
        acquired = []
        await client.start_notify(
            notify[0], lambda _, data: acquired.append(bytes(data)), bluez={"use_start_notify": False}
        )
        check(True, f"{family}: start_notify through AcquireNotify")
        await client.stop_notify(notify[0])
        if family == "chessnut":
            state = next(c for c in notify if c.uuid.startswith("1b7e8262"))
            response = next(c for c in notify if c.uuid.startswith("1b7e8273"))
            frames = []
            await client.start_notify(state, lambda _, data: frames.append(bytes(data)))
            acks = []
            await client.start_notify(response, lambda _, data: acks.append(bytes(data)))
            await client.write_gatt_char(write, b"\x21\x01\x00", response=True)
            for _ in range(50):
                if frames and acks:
                    break
                await asyncio.sleep(0.1)
            check(acks[:1] == [b"\x23\x01\x00"], f"chessnut: the board acks the session start ({acks[:1]})")
            check(frames, "chessnut: state frames arrive as notifications")
    check(True, f"{family}: disconnected")

    ctl(boardsim, bus, "fail-connects", address, "1", "--error", "abort")
    async with BleakClient(address, timeout=25) as client:
        check(client.is_connected, f"{family}: reconnects after an injected le-connection-abort-by-local")

    ctl(boardsim, bus, "present", address, "off")
    try:
        async with BleakClient(address, timeout=4):
            raise AssertionError(f"{family}: connected to a board that is switched off")
    except (BleakError, asyncio.TimeoutError, TimeoutError) as error:
        check(True, f"{family}: a switched-off board does not connect ({type(error).__name__})")
    finally:
        ctl(boardsim, bus, "present", address, "on")


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--boardsim", required=True)
    parser.add_argument("--bus", required=True)
    parser.add_argument("--boards", required=True, help="JSON list of {family, address}")
    arguments = parser.parse_args()
    for board in json.loads(arguments.boards):
        await probe(board, arguments.boardsim, arguments.bus)
    print("bleak probe: every family passed", flush=True)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except AssertionError as failure:
        print(f"bleak probe FAILED: {failure}", file=sys.stderr, flush=True)
        sys.exit(1)
