extension BlueZBoardTransport {
    /// The signal strength BlueZ reports for the linked board (`Device1.RSSI`, dBm), `nil`
    /// without a link or when BlueZ does not say.
    public var linkRSSI: Int? {
        guard let path = link?.devicePath ?? lastDevicePath else { return nil }
        return manager.device(at: path)?.rssi
    }

    /// Writes the current link's paced writer dropped after their retries (0 without a link).
    public var linkDroppedWrites: Int {
        link?.writer?.droppedCount ?? 0
    }

    /// Bytes the current link's notifications carried (0 without a link).
    public var linkBytesReceived: Int {
        link?.bytesFed ?? 0
    }

    /// Treats the current link as lost (`reason` becomes ``lastError``): it is torn down,
    /// ``BoardKit/BoardEvent/disconnected(error:)`` is yielded and the reconnect policy
    /// starts, as after a drop. For a link BlueZ says is up but that carries nothing (a
    /// stalled board). Does nothing without an up link.
    public func recycleLink(reason: String) {
        guard let link, link.isUp else { return }
        linkLost(link, reason: reason)
    }
}
