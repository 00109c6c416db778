import DBus
import TestSupport
import Testing

/// Signals, match rules, bus names and name-owner tracking.
@Suite(.enabled(if: TestTools.available("dbus-daemon")))
@MainActor
struct DBusSignalTests {
    static let interface = "org.example.Signals"

    @Test func matchingSignalsArriveAndOthersDoNot() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let inbox = Inbox<DBusMessage>()
        // The rule on the bus is broad (whole interface); the handler's rule is narrow, so the
        // connection receives non-matching signals and must filter them itself.
        try await bus.client.addMatch(DBusMatchRule(sender: bus.server.uniqueName, interface: Self.interface))
        let subscription = try await bus.client.subscribe(
            DBusMatchRule(
                sender: bus.server.uniqueName, interface: Self.interface, member: "Moved", pathNamespace: "/board")
        ) { inbox.append($0) }
        try bus.server.emitSignal(path: "/board/1", interface: Self.interface, member: "Other", body: [.uint32(1)])
        try bus.server.emitSignal(path: "/elsewhere", interface: Self.interface, member: "Moved", body: [.uint32(2)])
        try bus.server.emitSignal(path: "/boardroom", interface: Self.interface, member: "Moved", body: [.uint32(3)])
        try bus.server.emitSignal(path: "/board/1", interface: Self.interface, member: "Moved", body: [.uint32(4)])
        try bus.server.emitSignal(path: "/board", interface: Self.interface, member: "Moved", body: [.uint32(5)])
        let received = await inbox.waitFor(count: 2)
        // A sentinel after everything: once it is in, nothing else can still be on its way.
        try bus.server.emitSignal(path: "/board/end", interface: Self.interface, member: "Moved", body: [.uint32(6)])
        _ = await inbox.waitFor(count: 3)
        #expect(received.count >= 2)
        #expect(inbox.items.map(\.body) == [[.uint32(4)], [.uint32(5)], [.uint32(6)]])
        let first = try #require(inbox.items.first)
        #expect(first.kind == .signal)
        #expect(first.sender == bus.server.uniqueName)
        #expect(first.path == "/board/1")
        #expect(first.interface == Self.interface)
        #expect(first.member == "Moved")
        subscription.cancel()
        #expect(!subscription.isActive)
    }

    @Test func cancelledSubscriptionStopsDelivery() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let cancelled = Inbox<DBusMessage>()
        let kept = Inbox<DBusMessage>()
        let rule = DBusMatchRule(interface: Self.interface, member: "Tick")
        let first = try await bus.client.subscribe(rule) { cancelled.append($0) }
        _ = try await bus.client.subscribe(rule) { kept.append($0) }
        try bus.server.emitSignal(path: "/t", interface: Self.interface, member: "Tick")
        #expect(await kept.waitFor(count: 1).count == 1)
        first.cancel()
        try bus.server.emitSignal(path: "/t", interface: Self.interface, member: "Tick")
        #expect(await kept.waitFor(count: 2).count == 2)
        #expect(cancelled.items.count == 1)
    }

    @Test func wellKnownSenderFiltersOtherConnections() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let impostor = try await DBusConnection(address: bus.daemon.address)
        defer { impostor.close() }
        #expect(try await bus.server.requestName("org.example.Fake", flags: .doNotQueue) == .primaryOwner)
        let inbox = Inbox<DBusMessage>()
        // A broad bus rule lets the impostor's signal reach the client; the subscription must
        // still only pass the owner's.
        try await bus.client.addMatch(DBusMatchRule(interface: Self.interface))
        _ = try await bus.client.subscribe(
            DBusMatchRule(sender: "org.example.Fake", interface: Self.interface, member: "Moved")
        ) { inbox.append($0) }
        // Let the owner lookup finish (it is answered in order with the AddMatch above).
        _ = try await bus.client.nameOwner(of: "org.example.Fake")
        try impostor.emitSignal(path: "/x", interface: Self.interface, member: "Moved", body: [.string("fake")])
        try bus.server.emitSignal(path: "/x", interface: Self.interface, member: "Moved", body: [.string("real")])
        try bus.server.emitSignal(path: "/x", interface: Self.interface, member: "Moved", body: [.string("end")])
        let received = await inbox.waitFor(count: 2)
        #expect(received.map(\.body) == [[.string("real")], [.string("end")]])
    }

    @Test func requestingNames() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        #expect(try await bus.server.requestName("org.bluez", flags: .doNotQueue) == .primaryOwner)
        #expect(try await bus.server.requestName("org.bluez", flags: .doNotQueue) == .alreadyOwner)
        #expect(try await bus.client.requestName("org.bluez", flags: .doNotQueue) == .exists)
        #expect(try await bus.client.requestName("org.bluez") == .inQueue)
        #expect(try await bus.client.nameOwner(of: "org.bluez") == bus.server.uniqueName)
        #expect(try await bus.client.nameOwner(of: "org.nobody.Here") == nil)
        #expect(try await bus.server.releaseName("org.bluez") == .released)
        // The queued client takes over.
        #expect(try await bus.server.nameOwner(of: "org.bluez") == bus.client.uniqueName)
        #expect(try await bus.server.releaseName("org.bluez") == .notOwner)
        let invalid = await capturedError { _ = try await bus.server.requestName("no dots") }
        #expect(invalid?.name == DBusError.Name.invalidArgs)
    }

    @Test func nameOwnerChangedSeenWhenAConnectionDrops() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let second = try await DBusConnection(address: bus.daemon.address)
        let owners = Inbox<String?>()
        let watch = try await bus.client.watchNameOwner(second.uniqueName) { owners.append($0) }
        #expect(owners.items == [second.uniqueName])
        second.close()
        #expect(await owners.waitFor(count: 2) == [second.uniqueName, nil])
        watch.cancel()
    }

    @Test func watchingAWellKnownNameSeesItComeAndGo() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let owners = Inbox<String?>()
        _ = try await bus.client.watchNameOwner("org.bluez") { owners.append($0) }
        #expect(owners.items == [nil])
        let fake = try await DBusConnection(address: bus.daemon.address)
        #expect(try await fake.requestName("org.bluez", flags: .doNotQueue) == .primaryOwner)
        #expect(await owners.waitFor(count: 2) == [nil, fake.uniqueName])
        fake.close()
        #expect(await owners.waitFor(count: 3) == [nil, fake.uniqueName, nil])
    }

    @Test func rawNameOwnerChangedSignalHasThreeStrings() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let inbox = Inbox<DBusMessage>()
        _ = try await bus.client.subscribe(.nameOwnerChanged("org.example.Raw")) { inbox.append($0) }
        #expect(try await bus.server.requestName("org.example.Raw") == .primaryOwner)
        let signal = try #require(await inbox.waitFor(count: 1).first)
        #expect(signal.sender == DBusStandard.busName)
        #expect(signal.body == [.string("org.example.Raw"), .string(""), .string(bus.server.uniqueName)])
    }

    @Test func invalidRuleIsRejected() async throws {
        let bus = try await BusFixture()
        defer { bus.close() }
        let error = await capturedError { try await bus.client.addMatch(DBusMatchRule(path: "bad")) }
        #expect(error?.name == DBusError.Name.matchRuleInvalid)
    }
}
