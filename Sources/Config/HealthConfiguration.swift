/// The `health` section: the `<base>/bridge/<node>/health` report and stall detection.
public struct HealthConfiguration: Sendable, Equatable, Hashable {
    /// Seconds between health reports (default 60; 1…86400).
    public var interval: Double
    /// Seconds a connected board may send nothing before it is stalled and its link
    /// recycled (default 120; 0 turns stall detection off, else 4…86400). Half-way through,
    /// the board is asked for its state or battery, so an idle board answers and is not
    /// taken for a stalled one.
    public var stallAfter: Double

    /// The defaults, or the given values.
    public init(interval: Double = 60, stallAfter: Double = 120) {
        self.interval = interval
        self.stallAfter = stallAfter
    }
}

extension HealthConfiguration {
    static let keys = ["interval", "stall_after"]

    static func read(_ section: ConfigMapping, reader: ConfigReader) -> HealthConfiguration {
        var health = HealthConfiguration()
        health.interval = section.double("interval", in: 1...86400, default: health.interval)
        health.stallAfter = section.double("stall_after", in: 0...86400, default: health.stallAfter)
        if health.stallAfter > 0, health.stallAfter < 4, let node = section.value("stall_after") {
            reader.fail(section.path("stall_after"), "must be 0 (off) or at least 4 seconds", at: node.mark)
            health.stallAfter = HealthConfiguration().stallAfter
        }
        return health
    }
}
