import Contract
import Logging
import MainLoop

/// Decides which refused commands and requests are answered and logged (a
/// ``RefusalLimiter`` per board), and reports those it held back once the board's budget
/// has refilled: a log line and, for a served board, one error answer with the count.
@MainActor
final class RefusalReporter {
    private var limiter = RefusalLimiter()
    private var timer: LoopTimer?
    private let logger: Logger
    private let publisher: any MessagePublishing
    private let builder: MessageBuilder

    /// A reporter logging to `logger` and answering through `publisher`.
    init(logger: Logger, publisher: any MessagePublishing, builder: MessageBuilder) {
        self.logger = logger
        self.publisher = publisher
        self.builder = builder
    }

    isolated deinit { timer?.cancel() }

    /// The rate-limit key shared by commands for boards this bridge does not serve (one
    /// key, so made-up board ids cannot grow the limiter).
    static let unknownBoardKey = "\u{0}unknown board"
    /// The rate-limit key of refused bridge requests.
    static let bridgeRequestKey = "\u{0}bridge"

    /// Whether a refusal on `key` is answered and logged (``RefusalLimiter``); logs it
    /// with the count of refusals suppressed before it, and arranges for a report of the
    /// suppressed ones when it is not.
    func admit(_ key: String, board: String?, error: String) -> Bool {
        var fields = board.map { [("board", $0)] } ?? []
        switch limiter.admit(key, at: Self.monotonicSeconds()) {
        case .answer(let suppressed):
            if suppressed > 0 { fields.append(("suppressed_before", String(suppressed))) }
            logger.warning(board == nil ? "refused request" : "refused command", fields + [("error", error)])
            return true
        case .suppress:
            scheduleReport()
            return false
        }
    }

    /// Reports suppressed refusals once their bucket has refilled: a log line and, for a
    /// served board, one error answer with the count.
    private func scheduleReport() {
        guard timer == nil, let delay = limiter.nextReportDelay(at: Self.monotonicSeconds()) else {
            return
        }
        timer = MainLoop.after(max(delay, 0.05)) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.reportSuppressed()
        }
    }

    private func reportSuppressed() {
        for (key, count) in limiter.takeReports(at: Self.monotonicSeconds()) {
            let text = "\(count) more refused commands were not answered (rate limit)"
            if key == Self.unknownBoardKey || key == Self.bridgeRequestKey {
                logger.warning(
                    "refused commands not answered", [("count", String(count)), ("for", String(key.dropFirst()))])
            } else {
                logger.warning("refused commands not answered", [("board", key), ("count", String(count))])
                publisher.publish(builder.boardResponse(board: key, .error(message: text)))
            }
        }
        scheduleReport()
    }

    /// Seconds on `CLOCK_MONOTONIC` (Swift's `SuspendingClock`) since the first call; the
    /// limiter only takes differences.
    private static func monotonicSeconds() -> Double {
        origin.duration(to: .now).inSeconds
    }

    private static let origin = SuspendingClock.now
}
