import Broadcast
public import Curl
import MainLoop

/// Pushes a round's PGN to a relay's push endpoint whenever what the relay may see
/// changes: ``contentChanged()`` after every board update, and once a second while a
/// delay holds changes back (the PGN a delayed relay may see changes as time passes).
/// An unchanged body is never pushed again; pushes are coalesced and retried with
/// back-off by ``BroadcastPushSchedule``; every per-game error the relay returns is
/// reported.
@MainActor
public final class RelayPusher {
    private let settings: RelayPushSettings
    private let client: CurlClient
    private let body: @MainActor () -> String
    private let now: @MainActor () -> Double
    private var schedule: BroadcastPushSchedule
    private var pushed: String?
    /// Armed for the next push the schedule allows.
    private var timer: LoopTimer?
    /// Once a second while a delay holds changes back.
    private var polling: LoopTimer?
    /// Called after every push with how it went.
    public var onReport: (@MainActor (RelayPushReport) -> Void)?
    /// The last report.
    public private(set) var lastReport: RelayPushReport?

    /// A pusher for `settings`; `body` renders what the relay may see now, `now` reads
    /// the clock (seconds on a steady clock). With `pollWhileDelayed`, the body is looked
    /// at once a second so that moves held back by a delay go out when it has passed.
    public init(
        settings: RelayPushSettings, client: CurlClient = CurlClient(label: "boardbridge.relay"),
        pollWhileDelayed: Bool, body: @escaping @MainActor () -> String, now: @escaping @MainActor () -> Double
    ) {
        self.settings = settings
        self.client = client
        self.body = body
        self.now = now
        schedule = BroadcastPushSchedule(
            minimumInterval: settings.minimumInterval, maximumBackoff: settings.maximumBackoff)
        if pollWhileDelayed {
            polling = MainLoop.every(1) { [weak self] in self?.contentChanged() }
        }
    }

    isolated deinit {
        timer?.cancel()
        polling?.cancel()
    }

    /// Stops pushing (a push under way still ends).
    public func stop() {
        timer?.cancel()
        polling?.cancel()
        timer = nil
        polling = nil
    }

    /// What the relay may see may have changed: pushes it when it has.
    public func contentChanged() {
        guard body() != pushed else { return }
        schedule.changed(at: now())
        arm()
    }

    private func arm() {
        guard let next = schedule.nextAttempt else { return }
        timer?.cancel()
        timer = MainLoop.after(max(0, next - now())) { [weak self] in
            guard let self else { return }
            self.timer = nil
            // The push itself awaits the transfer (curl's own thread): one task per push.
            Task { await self.pushIfDue() }
        }
    }

    private func pushIfDue() async {
        guard schedule.isDue(at: now()) else {
            arm()
            return
        }
        let text = body()
        guard text != pushed else { return }
        schedule.started(at: now())
        let request = CurlRequest(
            url: settings.url, method: "POST",
            headers: [
                ("Authorization", "Bearer \(settings.token)"), ("Content-Type", "text/plain; charset=utf-8"),
                ("User-Agent", settings.userAgent),
            ],
            body: Array(text.utf8), timeout: settings.timeout)
        let result = await client.perform(request)
        let report: RelayPushReport
        switch result {
        case .success(let response) where (200..<300).contains(response.status):
            let errors = (BroadcastPushReply(json: response.text)?.errors ?? []).map {
                BroadcastPushGameError(gameID: $0.gameID, players: $0.players, error: $0.error ?? "")
            }
            pushed = text
            schedule.finished(.accepted(gameErrors: errors.count), at: now())
            report = RelayPushReport(
                time: now(), status: response.status, failure: nil, gameErrors: errors, failures: 0)
        case .success(let response):
            let retryAfter = response.header("Retry-After").flatMap(Double.init)
            schedule.finished(.refused(status: response.status, retryAfter: retryAfter), at: now())
            report = RelayPushReport(
                time: now(), status: response.status,
                failure: "HTTP \(response.status): \(String(response.text.prefix(200)))", gameErrors: [],
                failures: schedule.failures)
        case .failure(let error):
            schedule.finished(.unreachable, at: now())
            report = RelayPushReport(
                time: now(), status: nil, failure: error.description, gameErrors: [], failures: schedule.failures)
        }
        lastReport = report
        onReport?(report)
        // Changes made during the push, or a failed push, go out at the next attempt.
        if body() != pushed { schedule.changed(at: now()) }
        arm()
    }
}
