import CMainQueue

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension MainLoop {
    /// Calls `handler` on the main actor with the number of each of `signals` the process
    /// receives, from the loop (the one signal API: the daemon's SIGTERM and SIGINT, the
    /// hall's).
    ///
    /// A `sigaction` handler writes the number to a non-blocking pipe that the loop watches
    /// (the self-pipe). Not `signalfd`: a signalfd sees a signal only while every thread
    /// blocks it, and libdispatch's worker threads, started before any code of ours runs,
    /// do not; the kernel may hand the signal to one of them. A handler runs on whichever
    /// thread takes it and only writes one byte. Later calls add signals and replace the
    /// handler. Returns `false` when the pipe or a handler cannot be installed.
    @discardableResult
    public static func onSignals(_ signals: [Int32], _ handler: @escaping @MainActor (Int32) -> Void) -> Bool {
        LoopSignals.handler = handler
        if LoopSignals.watch == nil {
            let reader = cmq_signal_pipe()
            guard reader >= 0 else { return false }
            LoopSignals.watch = DescriptorWatch(descriptor: reader, closesDescriptor: true) {
                LoopSignals.drain(reader)
            }
        }
        return signals.allSatisfy { cmq_signal_route($0) == 0 }
    }
}

/// The signal pipe's reader.
@MainActor
enum LoopSignals {
    static var watch: DescriptorWatch?
    static var handler: (@MainActor (Int32) -> Void)?

    static func drain(_ reader: Int32) {
        var numbers = [UInt8](repeating: 0, count: 64)
        let count = numbers.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
        guard count > 0 else { return }
        for number in numbers[0..<count] { handler?(Int32(number)) }
    }
}
