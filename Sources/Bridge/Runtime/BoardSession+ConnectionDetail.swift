extension BoardSession {
    /// Reconnect details published on `<base>/<board>/connection`.
    public struct ConnectionDetail: Equatable, Sendable {
        /// The policy's attempt limit.
        public var maxAttempts: Int?
        /// Seconds until the next attempt.
        public var nextDelay: Double?
        /// The last link error.
        public var lastError: String?
        /// The Bluetooth adapter of the current or last link (`hci0`).
        public var adapter: String?
        /// The address of the board on the current or last link.
        public var address: String?

        /// No details yet.
        public init(
            maxAttempts: Int? = nil, nextDelay: Double? = nil, lastError: String? = nil, adapter: String? = nil,
            address: String? = nil
        ) {
            self.maxAttempts = maxAttempts
            self.nextDelay = nextDelay
            self.lastError = lastError
            self.adapter = adapter
            self.address = address
        }
    }
}
