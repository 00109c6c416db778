import DBus
import TestSupport
import Testing

/// Every type BlueZ uses goes through a real method call and comes back equal.
@Suite(.enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct DBusRoundTripTests {
    nonisolated static let values: [DBusValue] = [
        .byte(0xA5), .bool(true), .bool(false), .int16(-127), .uint16(0xFFFF), .int32(Int32.min),
        .uint32(UInt32.max), .int64(Int64.min), .uint64(UInt64.max), .double(-1.5),
        .string(""), .string("Grüße ♞ chess"), .objectPath("/"), .objectPath("/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"),
        .signature("a{oa{sa{sv}}}"), .bytes([]), .bytes([0, 1, 0x7F, 0x80, 0xFF]), .strings(["a", "b"]),
        .objectPaths(["/a", "/b/c"]), .array("as", [.strings(["x"]), .strings([])]),
        .propertyDictionary(["Connected": .bool(true), "RSSI": .int16(-60), "UUIDs": .strings(["1800"])]),
        .propertyDictionary([:]),
        .uint16Dictionary([(0x004C, .bytes([1, 2, 3])), (0xFFFF, .bytes([]))]),
        .dictionary("y", "v", [DBusDictEntry(key: .byte(1), value: .variant(.bytes([6])))]),
        .managedObjects([
            (
                "/org/bluez/hci0",
                [
                    ("org.freedesktop.DBus.Introspectable", []),
                    ("org.bluez.Adapter1", [("Powered", .bool(true)), ("Roles", .strings(["central"]))]),
                ]
            ),
            ("/org/bluez/hci0/dev_11_22_33_44_55_66", [("org.bluez.Device1", [("Paired", .bool(false))])]),
        ]),
        .managedObjects([]),
        .struct([.objectPath("/x"), .uint16(23)]), .struct([.struct([.byte(1)]), .strings([])]),
        .variant(.variant(.variant(.string("deep")))), .variant(.bytes([9])), .variant(.propertyDictionary([:])),
        .array("(oq)", [.struct([.objectPath("/a"), .uint16(1)])]),
        .dictionary(
            "o", "a{sv}", [DBusDictEntry(key: .objectPath("/p"), value: .propertyDictionary(["k": .double(2)]))]),
    ]

    @Test(arguments: values)
    func valueSurvivesAMethodCall(_ value: DBusValue) async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let echo = try EchoObject(on: bus.server)
        let reply = try await bus.client.callEcho("Echo", on: bus.server, [value])
        #expect(reply == [value])
        #expect(echo.calls.first?.body == [value])
        #expect(echo.calls.first?.signature == value.typeSignature)
    }

    @Test func wholeBodySurvivesInOrder() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        _ = try EchoObject(on: bus.server)
        let reply = try await bus.client.callEcho("Echo", on: bus.server, Self.values)
        #expect(reply == Self.values)
    }

    @Test func callHeaderCarriesSenderPathAndMember() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let echo = try EchoObject(on: bus.server)
        _ = try await bus.client.callEcho("Echo", on: bus.server, [.string("x")])
        let call = try #require(echo.calls.first)
        #expect(call.kind == .methodCall)
        #expect(call.sender == bus.client.uniqueName)
        #expect(call.destination == bus.server.uniqueName)
        #expect(call.path == EchoObject.path)
        #expect(call.interface == EchoObject.interface)
        #expect(call.member == "Echo")
    }

    @Test func largeByteArrayRoundTrips() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        _ = try EchoObject(on: bus.server)
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let reply = try await bus.client.callEcho("Echo", on: bus.server, [.bytes(bytes)])
        #expect(reply.first?.bytesValue == bytes)
    }
}
