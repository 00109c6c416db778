/// Signals: match rules on the bus, local handlers, and name-owner tracking.
extension DBusConnection {
    /// Asks the bus to route signals matching `rule` to this connection (`AddMatch`), and
    /// waits for it to confirm. Rules added before a `GetManagedObjects` call are in effect
    /// for every change after it.
    ///
    /// - Throws: ``DBusError/Name/matchRuleInvalid`` for a malformed rule, or a bus error.
    public func addMatch(_ rule: DBusMatchRule) async throws(DBusError) {
        try rule.validate()
        _ = try await call(
            destination: Self.busName, path: Self.busPath, interface: Self.busInterface, member: "AddMatch",
            body: [.string(rule.ruleString)])
    }

    /// Removes a rule added with ``addMatch(_:)`` (`RemoveMatch`; the bus counts duplicates).
    public func removeMatch(_ rule: DBusMatchRule) async throws(DBusError) {
        try rule.validate()
        _ = try await call(
            destination: Self.busName, path: Self.busPath, interface: Self.busInterface, member: "RemoveMatch",
            body: [.string(rule.ruleString)])
    }

    /// Calls `handler` for every incoming signal that matches `rule` locally, without
    /// touching the bus's rules (use when the rule was added separately, or for signals sent
    /// directly to this connection). Handlers run in registration order, on the main actor,
    /// while the connection dispatches; they must not block.
    ///
    /// A well-known `sender` (`org.bluez`) is compared with its current owner once that is
    /// known (see ``subscribe(_:handler:)``); until then the bus's routing is trusted.
    public func addSignalHandler(
        _ rule: DBusMatchRule, handler: @escaping @MainActor (DBusMessage) -> Void
    ) throws(DBusError) -> DBusSubscription {
        try rule.validate()
        let entry = DBusSignalHandlerEntry(id: nextHandlerID, rule: rule, handler: handler)
        nextHandlerID += 1
        signalHandlers.append(entry)
        return DBusSubscription(connection: self, entry: entry)
    }

    /// Adds `rule` on the bus and a local handler for it: the usual way to receive signals.
    /// ``DBusSubscription/cancel()`` removes both.
    ///
    /// When the rule names a well-known sender, the connection also tracks that name's owner
    /// (a `NameOwnerChanged` rule plus `GetNameOwner`), so that signals from any other
    /// connection are never passed to `handler`.
    public func subscribe(
        _ rule: DBusMatchRule, handler: @escaping @MainActor (DBusMessage) -> Void
    ) async throws(DBusError) -> DBusSubscription {
        let subscription = try addSignalHandler(rule, handler: handler)
        if let name = rule.wellKnownSender {
            retainTrackedName(name)
            subscription.trackedName = name
        }
        do {
            try await addMatch(rule)
        } catch {
            subscription.cancel()
            throw error
        }
        subscription.removesMatch = true
        return subscription
    }

    /// Observes who owns `name`: `handler` gets the current owner's unique name (`nil` when
    /// nobody owns it) once the watch is set up, then every change, in wire order (a restart
    /// of the owner shows as `nil` then the new owner). Cancel the returned subscription to
    /// stop.
    public func watchNameOwner(
        _ name: String, handler: @escaping @MainActor (String?) -> Void
    ) async throws(DBusError) -> DBusSubscription {
        guard DBusNames.isValidBusName(name) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid bus name '\(name)'")
        }
        let state = DBusNameWatchState(handler: handler)
        let rule = DBusMatchRule.nameOwnerChanged(name)
        let subscription = try await subscribe(rule) { message in
            guard message.body.count == 3, let owner = message.body[2].stringValue else { return }
            state.deliver(owner.isEmpty ? nil : owner)
        }
        // The reply reflects every change before it; `deliver` runs in wire order.
        let initial: Result<Void, DBusError> = await withCheckedContinuation { continuation in
            do throws(DBusError) {
                try call(
                    destination: Self.busName, path: Self.busPath, interface: Self.busInterface,
                    member: "GetNameOwner", body: [.string(name)]
                ) { result in
                    switch result {
                    case .success(let body):
                        state.deliver(body.first?.stringValue)
                        continuation.resume(returning: .success(()))
                    case .failure(let error) where error.name == DBusError.Name.nameHasNoOwner:
                        state.deliver(nil)
                        continuation.resume(returning: .success(()))
                    case .failure(let error):
                        continuation.resume(returning: .failure(error))
                    }
                }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        if case .failure(let error) = initial {
            subscription.cancel()
            throw error
        }
        return subscription
    }

    /// Routes one incoming signal (called by the message filter while dispatching).
    func handleSignal(_ message: DBusMessageHandle) {
        if message.interface == "org.freedesktop.DBus.Local" && message.member == "Disconnected" {
            handleDisconnected()
            return
        }
        if !trackedNames.isEmpty && message.member == "NameOwnerChanged" && message.sender == Self.busName
            && message.interface == Self.busInterface
        {
            updateTrackedName(from: message)
        }
        var decoded: DBusMessage?
        for entry in signalHandlers where entry.isActive {
            guard entry.rule.matchesIgnoringWellKnownSender(message) else { continue }
            if let name = entry.rule.wellKnownSender, let tracked = trackedNames[name], tracked.isKnown,
                message.sender != tracked.owner
            {
                continue
            }
            let value = decoded ?? message.decode()
            decoded = value
            entry.handler(value)
        }
    }

    // MARK: Name-owner tracking

    /// Starts (or counts another user of) owner tracking for `name`. Failures only leave the
    /// owner unknown, in which case the bus's routing is trusted.
    func retainTrackedName(_ name: String) {
        if let tracked = trackedNames[name] {
            tracked.count += 1
            return
        }
        let tracked = DBusTrackedName()
        trackedNames[name] = tracked
        let rule = DBusMatchRule.nameOwnerChanged(name)
        try? call(
            destination: Self.busName, path: Self.busPath, interface: Self.busInterface, member: "AddMatch",
            body: [.string(rule.ruleString)]
        ) { _ in }
        try? call(
            destination: Self.busName, path: Self.busPath, interface: Self.busInterface, member: "GetNameOwner",
            body: [.string(name)]
        ) { [weak tracked] result in
            guard let tracked else { return }
            switch result {
            case .success(let body):
                tracked.owner = body.first?.stringValue
                tracked.isKnown = true
            case .failure(let error) where error.name == DBusError.Name.nameHasNoOwner:
                tracked.owner = nil
                tracked.isKnown = true
            case .failure:
                break
            }
        }
    }

    func releaseTrackedName(_ name: String) {
        guard let tracked = trackedNames[name] else { return }
        tracked.count -= 1
        guard tracked.count == 0 else { return }
        trackedNames[name] = nil
        guard isConnected else { return }
        try? callWithoutReply(
            destination: Self.busName, path: Self.busPath, interface: Self.busInterface, member: "RemoveMatch",
            body: [.string(DBusMatchRule.nameOwnerChanged(name).ruleString)])
    }

    private func updateTrackedName(from message: DBusMessageHandle) {
        let body = message.readBody()
        guard body.count == 3, let name = body[0].stringValue, let tracked = trackedNames[name],
            let owner = body[2].stringValue
        else { return }
        tracked.owner = owner.isEmpty ? nil : owner
        tracked.isKnown = true
    }
}

/// A local signal handler.
@MainActor
final class DBusSignalHandlerEntry {
    let id: UInt64
    let rule: DBusMatchRule
    let handler: @MainActor (DBusMessage) -> Void
    var isActive = true

    init(id: UInt64, rule: DBusMatchRule, handler: @escaping @MainActor (DBusMessage) -> Void) {
        self.id = id
        self.rule = rule
        self.handler = handler
    }
}

/// The last known owner of a well-known name that signal handlers filter on.
@MainActor
final class DBusTrackedName {
    var count = 1
    var owner: String?
    var isKnown = false
}

/// Delivers owner changes to one ``DBusConnection/watchNameOwner(_:handler:)`` handler,
/// skipping repeats of the value it saw last.
@MainActor
final class DBusNameWatchState {
    private let handler: @MainActor (String?) -> Void
    private var hasDelivered = false
    private var last: String?

    init(handler: @escaping @MainActor (String?) -> Void) {
        self.handler = handler
    }

    func deliver(_ owner: String?) {
        if hasDelivered && last == owner { return }
        hasDelivered = true
        last = owner
        handler(owner)
    }
}

/// A signal handler registered on a ``DBusConnection`` (and, for ``DBusConnection/subscribe(_:handler:)``
/// and ``DBusConnection/watchNameOwner(_:handler:)``, its match rule on the bus).
///
/// The subscription stays active until ``cancel()`` or until the connection goes away;
/// dropping this object does not cancel it.
@MainActor
public final class DBusSubscription {
    /// The rule the handler matches.
    public var rule: DBusMatchRule { entry.rule }
    /// Whether the handler is still called.
    public var isActive: Bool { entry.isActive }
    private weak var connection: DBusConnection?
    private let entry: DBusSignalHandlerEntry
    var removesMatch = false
    var trackedName: String?

    init(connection: DBusConnection, entry: DBusSignalHandlerEntry) {
        self.connection = connection
        self.entry = entry
    }

    /// Stops the handler and removes the bus rule (without waiting for the bus). Idempotent.
    public func cancel() {
        guard entry.isActive else { return }
        entry.isActive = false
        guard let connection else { return }
        connection.signalHandlers.removeAll { $0 === entry }
        if let trackedName { connection.releaseTrackedName(trackedName) }
        if removesMatch && connection.isConnected {
            try? connection.callWithoutReply(
                destination: DBusConnection.busName, path: DBusConnection.busPath,
                interface: DBusConnection.busInterface, member: "RemoveMatch", body: [.string(entry.rule.ruleString)])
        }
    }
}
