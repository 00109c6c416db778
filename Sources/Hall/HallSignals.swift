import Dispatch
import SystemCalls

/// SIGTERM / SIGINT for `boardbridge hall`: stop the service (close the streams, the server
/// and the broker connection) and exit 0.
@MainActor
public enum HallSignals {
    private static var sources: [any DispatchSourceSignal] = []
    private static var stopping = false

    /// Installs the handlers; `stop` runs once, then the process exits.
    public static func install(_ stop: @escaping @MainActor () async -> Void) {
        for number in [ProcessControl.terminateSignal, ProcessControl.interruptSignal] {
            ProcessControl.ignore(signal: number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler {
                MainActor.assumeIsolated {
                    guard !stopping else { return }
                    stopping = true
                    Task { @MainActor in
                        await stop()
                        ProcessControl.exit(0)
                    }
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}
