import BoardKit
import FoundationEssentials
import Logging
import MainLoop
import SystemCalls

/// One RFCOMM link: the stream socket BlueZ handed to `Profile1.NewConnection`, read on the
/// main loop (``MainLoop/ReadableWatch``, non-blocking, into one fixed buffer), written by the
/// link's ``BlueZPacedWriter`` (non-blocking `send`; a full socket is retried, a partial write
/// continues with the rest, `EPIPE`/`ECONNRESET` is link loss). End of file or a read error
/// is reported once through `onClose`; the descriptor is closed exactly once.
@MainActor
final class BlueZSerialLink {
    /// The most bytes read at once.
    static let readSize = 4096
    /// How often a full socket is retried before the chunk is given up (at 20 ms: 10 s).
    static let maximumFullRetries = 500

    let devicePath: String
    let descriptor: Int32
    var adapter: any BoardAdapter
    private(set) var writer: BlueZPacedWriter?
    private var watch: ReadableWatch?
    private var buffer = [UInt8](repeating: 0, count: BlueZSerialLink.readSize)
    private let scheduler: any BlueZScheduler
    private let onBytes: @MainActor (Data) -> Void
    private let onClose: @MainActor (String) -> Void
    private var timers: [BlueZTimer] = []

    init(
        devicePath: String, descriptor: Int32, adapter: any BoardAdapter, scheduler: any BlueZScheduler,
        logger: Logger, onBytes: @escaping @MainActor (Data) -> Void,
        onClose: @escaping @MainActor (String) -> Void
    ) {
        self.devicePath = devicePath
        self.descriptor = descriptor
        self.adapter = adapter
        self.scheduler = scheduler
        self.onBytes = onBytes
        self.onClose = onClose
        try? FileDescriptor(rawValue: descriptor).makeNonBlockingAndCloseOnExec()
        writer = BlueZPacedWriter(
            minimumInterval: adapter.minimumWriteInterval, maximumChunkLength: 512, scheduler: scheduler,
            logger: logger
        ) { [weak self] chunk, completion in
            guard let self else { return completion(.linkLost("link closed")) }
            self.write(chunk, retries: 0, completion: completion)
        }
        writer?.onLinkLost = { [weak self] reason in self?.fail(reason) }
        watch = ReadableWatch(descriptor: descriptor, closesDescriptor: true) { [weak self] in self?.readAvailable() }
    }

    var isOpen: Bool { watch != nil }

    /// Stops reading and writing and closes the socket, without reporting. Idempotent.
    func close() {
        writer?.stop()
        for timer in timers { timer.cancel() }
        timers.removeAll()
        watch?.cancel()
        watch = nil
    }

    private func fail(_ reason: String) {
        guard isOpen else { return }
        close()
        onClose(reason)
    }

    /// Reads what waits on the socket (one buffer's worth) and hands it on.
    func readAvailable() {
        guard isOpen else { return }
        let socket = FileDescriptor(rawValue: descriptor)
        let received = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(Errno) -> Int in try socket.receive(into: raw) }
        }
        switch received {
        case .success(let count) where count > 0:
            onBytes(Data(buffer[0..<count]))
        case .success:
            fail("the board closed the RFCOMM link")
        case .failure(.wouldBlock):
            return
        case .failure(let error):
            fail("read failed (errno \(error.rawValue))")
        }
    }

    private func write(_ chunk: Data, retries: Int, completion: @escaping @MainActor (BlueZWriteResult) -> Void) {
        guard isOpen else { return completion(.linkLost("link closed")) }
        let socket = FileDescriptor(rawValue: descriptor)
        let result = chunk.withUnsafeBytes { raw in
            Result { () throws(Errno) -> Int in try socket.send(raw) }
        }
        switch result {
        case .success(let sent) where sent == chunk.count:
            completion(.success)
        case .success(let sent) where sent > 0:
            let rest = Data(chunk.dropFirst(sent))
            later { [weak self] in self?.write(rest, retries: 0, completion: completion) }
        case .success:
            completion(.linkLost("write failed (errno 0)"))
        case .failure(.wouldBlock):
            guard retries < Self.maximumFullRetries else { return completion(.failed("socket full")) }
            later { [weak self] in self?.write(chunk, retries: retries + 1, completion: completion) }
        case .failure(let error):
            completion(.linkLost("write failed (errno \(error.rawValue))"))
        }
    }

    private func later(_ action: @escaping @MainActor () -> Void) {
        // Fired timers are done with; keep the list short.
        if timers.count > 8 { timers.removeFirst(timers.count - 8) }
        timers.append(scheduler.schedule(after: 0.02, action))
    }

    isolated deinit {
        close()
    }
}
