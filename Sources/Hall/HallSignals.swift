import MainLoop
import SystemCalls

/// SIGTERM / SIGINT for `boardbridge hall`: stop the service (close the streams, the server
/// and the broker connection) and exit 0.
@MainActor
public enum HallSignals {
    private static var stopping = false

    /// Installs the handlers (``MainLoop/onSignals(_:_:)``); `stop` runs once, then the
    /// process exits.
    public static func install(_ stop: @escaping @MainActor () async -> Void) {
        MainLoop.onSignals([ProcessControl.terminateSignal, ProcessControl.interruptSignal]) { _ in
            guard !stopping else { return }
            stopping = true
            Task { @MainActor in
                await stop()
                ProcessControl.exit(0)
            }
        }
    }
}
