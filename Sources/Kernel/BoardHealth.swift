import FoundationEssentials

/// The health figures of one board's link, and the stall decision: a board whose link is
/// up but that has sent nothing for ``stallAfter`` seconds is stalled (the adapter hang BLE
/// gateways know: BlueZ still says connected, no notification comes).
///
/// An idle board may be silent for minutes, so silence alone is not a stall: half-way
/// through ``stallAfter`` the owner is told to ask the board for something (its state or
/// battery, ``StallDecision/probe``); only a board that does not answer either is stalled.
/// Pure value: time is passed in (seconds since the epoch, as ``GameSession`` takes it).
public struct BoardHealth: Equatable, Sendable {
    /// What ``check(at:)`` asks the owner to do.
    public enum StallDecision: Equatable, Sendable {
        /// Nothing: the board spoke recently, the link is down, or stall detection is off.
        case none
        /// Ask the board for something it answers (silent for half of ``stallAfter``).
        case probe
        /// The board is stalled: silent for `silentFor` seconds although asked. Reported
        /// once per silence; the owner recycles the link.
        case stalled(silentFor: Double)
    }

    /// Seconds of silence on an up link before it is stalled; 0 turns detection off.
    public let stallAfter: Double
    /// Frames (decoded notifications) received since the bridge started.
    public private(set) var frames = 0
    /// When the board last sent something (a frame, or bytes that made none), or `nil` before
    /// the first.
    public private(set) var lastFrame: Double?
    /// When the current link came up, or `nil` while it is down.
    public private(set) var linkUpSince: Double?
    /// Links that came up again after an earlier one (the first link is not a reconnect).
    public private(set) var reconnects = 0
    /// Times the adapter serving the board went away (powered off, removed, BlueZ gone)
    /// after a link was up: once per outage, however often the reconnect waits for it.
    public private(set) var adapterResets = 0
    /// Writes the board never acknowledged (dropped after their retries), and handshakes
    /// left unanswered.
    public private(set) var missingAcks = 0
    /// Frames the board's protocol decoder could not make sense of.
    public private(set) var malformedFrames = 0
    /// Stalls detected.
    public private(set) var stalls = 0
    /// Whether the current silence was reported as a stall (until a frame or a new link).
    public private(set) var isStalled = false
    private var probed = false
    private var hasBeenUp = false
    private var linkedSinceAdapterReset = false
    private var writesDroppedOnLink = 0
    private var rateMarkTime: Double?
    private var rateMarkFrames = 0

    /// Figures for a board whose link is down; `stallAfter` 0 turns stall detection off.
    public init(stallAfter: Double) {
        self.stallAfter = max(0, stallAfter)
    }

    /// The link came up at `now`.
    public mutating func linkUp(at now: Double) {
        guard linkUpSince == nil else { return }
        if hasBeenUp { reconnects += 1 }
        hasBeenUp = true
        linkedSinceAdapterReset = true
        linkUpSince = now
        probed = false
        isStalled = false
        writesDroppedOnLink = 0
    }

    /// The link went down (or is being set up again).
    public mutating func linkDown() {
        linkUpSince = nil
        probed = false
    }

    /// The adapter serving the board went away (counted once until a link is up again).
    public mutating func adapterReset() {
        guard linkedSinceAdapterReset else { return }
        linkedSinceAdapterReset = false
        adapterResets += 1
    }

    /// A frame arrived at `now`; `malformed` when the decoder could not read it.
    public mutating func frameReceived(at now: Double, malformed: Bool = false) {
        frames += 1
        lastFrame = now
        probed = false
        isStalled = false
        if malformed { malformedFrames += 1 }
    }

    /// The link carried bytes at `now` that made no event (a report that changed nothing,
    /// the answer to a ``StallDecision/probe`` among them): the board is there. Ends a
    /// silence as a frame does, without counting one.
    public mutating func bytesArrived(at now: Double) {
        lastFrame = now
        probed = false
        isStalled = false
    }

    /// A handshake or command went unanswered.
    public mutating func missingAck() {
        missingAcks += 1
    }

    /// The writer of the current link has dropped `total` writes so far: the new ones count
    /// as missing acknowledgements.
    public mutating func writesDropped(total: Int) {
        guard total > writesDroppedOnLink else { return }
        missingAcks += total - writesDroppedOnLink
        writesDroppedOnLink = total
    }

    /// Seconds since the last frame (or since the link came up, if later); `nil` while the
    /// link is down and nothing was ever received.
    public func secondsSinceLastFrame(at now: Double) -> Double? {
        // Checked for every board every second: no array for two optionals.
        let since: Double? =
            switch (lastFrame, linkUpSince) {
            case (let frame?, let up?): max(frame, up)
            case (let frame?, nil): frame
            case (nil, let up?): up
            case (nil, nil): nil
            }
        return since.map { max(0, now - $0) }
    }

    /// Frames per second since the previous call (or since the first frame), and starts the
    /// next period: call it once per health report.
    public mutating func takeFrameRate(at now: Double) -> Double {
        defer {
            rateMarkTime = now
            rateMarkFrames = frames
        }
        guard let markTime = rateMarkTime else { return 0 }
        let elapsed = now - markTime
        guard elapsed > 0 else { return 0 }
        return Double(frames - rateMarkFrames) / elapsed
    }

    /// The silence the link is judged by: since the last frame or the link coming up,
    /// whichever is later. Call it often (every second or so).
    public mutating func check(at now: Double) -> StallDecision {
        guard stallAfter > 0, linkUpSince != nil, !isStalled,
            let silent = secondsSinceLastFrame(at: now)
        else { return .none }
        if silent >= stallAfter {
            isStalled = true
            stalls += 1
            return .stalled(silentFor: silent)
        }
        if silent >= stallAfter / 2, !probed {
            probed = true
            return .probe
        }
        return .none
    }
}
