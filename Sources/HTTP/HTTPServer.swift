internal import CMicroHTTPD
import Dispatch
import MainLoop

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP(S) server over libmicrohttpd, driven by the daemon's ``MainLoop``.
///
/// No thread of its own and none per request: libmicrohttpd runs in its external-polling
/// mode with epoll (`MHD_USE_EPOLL`); its epoll descriptor is watched by a
/// ``DescriptorWatch`` and its timeouts by one loop timer (`MHD_get_timeout`), and
/// every callback runs on the main actor inside `MHD_run`.
///
/// Bounded: connections in total and per client address, request line and headers
/// (`.CONNECTION_MEMORY_LIMIT`; MHD answers 431/413), the body (413 before the
/// handler is called), and idle connections are closed after
/// ``HTTPServerSettings/connectionTimeout`` seconds (a slowloris client trickling its
/// headers is cut off). Event streams (``HTTPEventStream``) are suspended while idle.
@MainActor
public final class HTTPServer {
    /// The settings it was started with.
    public let settings: HTTPServerSettings
    /// The port it listens on (the chosen one when ``HTTPServerSettings/port`` was 0).
    public private(set) var port: UInt16 = 0
    /// Requests answered, by status code class (`2` for 2xx, …), for diagnostics.
    public private(set) var answered: [Int: Int] = [:]

    private let handler: @MainActor (HTTPRequest) -> HTTPReply
    private var daemon: OpaquePointer?
    private var watch: DescriptorWatch?
    private var timer: LoopTimer?
    private var runScheduled = false
    private var tlsStrings: [UnsafeMutablePointer<CChar>] = []
    /// Open connections per client address, and in all.
    private var openByClient: [String: Int] = [:]
    private var openConnections = 0

    /// Starts listening; `handler` answers every complete request on the main actor.
    public init(
        settings: HTTPServerSettings, handler: @escaping @MainActor (HTTPRequest) -> HTTPReply
    ) throws(HTTPServerError) {
        self.settings = settings
        self.handler = handler
        var flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if let tls = settings.tls {
            guard MHD_is_feature_supported(.FEATURE_TLS) == .YES else { throw .tlsUnsupported }
            flags |= MHD_USE_TLS.rawValue
            tlsStrings = [strdup(tls.keyPEM), strdup(tls.certificatePEM)]
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        var options: [MHD_OptionItem] = [
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: settings.connectionLimit, ptr_value: nil),
            MHD_OptionItem(
                option: .PER_IP_CONNECTION_LIMIT, value: settings.perClientLimit, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: settings.connectionTimeout, ptr_value: nil),
            MHD_OptionItem(
                option: .CONNECTION_MEMORY_LIMIT, value: max(settings.headerLimit, 4096), ptr_value: nil),
            MHD_OptionItem(
                option: .NOTIFY_COMPLETED, value: unsafeBitCast(completedCallback, to: Int.self),
                ptr_value: context),
            MHD_OptionItem(
                option: .NOTIFY_CONNECTION, value: unsafeBitCast(connectionCallback, to: Int.self),
                ptr_value: context),
        ]
        if tlsStrings.count == 2 {
            options.append(MHD_OptionItem(option: .HTTPS_MEM_KEY, value: 0, ptr_value: tlsStrings[0]))
            options.append(MHD_OptionItem(option: .HTTPS_MEM_CERT, value: 0, ptr_value: tlsStrings[1]))
        }
        options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
        let started = options.withUnsafeMutableBufferPointer { items in
            bb_mhd_start(
                UInt32(flags), settings.address, settings.port, acceptPolicy, context, accessCallback, context,
                items.baseAddress)
        }
        guard let started else {
            tlsStrings.forEach { free($0) }
            throw .cannotListen(address: settings.address, port: settings.port)
        }
        daemon = started
        port = bb_mhd_port(started)
        let descriptor = bb_mhd_epoll_fd(started)
        guard descriptor >= 0 else {
            stop()
            throw .noEventDescriptor
        }
        watch = DescriptorWatch(descriptor: descriptor, closesDescriptor: false) { [weak self] in self?.run() }
        run()
    }

    /// Closes every connection and the listening socket. Idempotent.
    public func stop() {
        watch?.cancel()
        watch = nil
        timer?.cancel()
        timer = nil
        if let daemon {
            self.daemon = nil
            MHD_stop_daemon(daemon)
        }
        tlsStrings.forEach { free($0) }
        tlsStrings = []
    }

    isolated deinit {
        stop()
    }

    /// Whether a new connection from `client` is taken: always while more than
    /// ``HTTPServerSettings/reservedConnections`` slots are free, then only from an address
    /// that holds fewer than ``HTTPServerSettings/reservedPerClient``.
    func admits(_ client: String) -> Bool {
        guard openConnections >= settings.connectionLimit - settings.reservedConnections else { return true }
        return openByClient[client, default: 0] < HTTPServerSettings.reservedPerClient
    }

    /// A connection from `client` opened or closed.
    func connection(from client: String, opened: Bool) {
        if opened {
            openConnections += 1
            openByClient[client, default: 0] += 1
        } else {
            openConnections = max(0, openConnections - 1)
            let left = openByClient[client, default: 1] - 1
            openByClient[client] = left > 0 ? left : nil
        }
    }

    /// Runs MHD soon (after a resumed stream got data); several calls make one run.
    func scheduleRun() {
        guard !runScheduled else { return }
        runScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                self?.runScheduled = false
                self?.run()
            }
        }
    }

    private func run() {
        guard let daemon else { return }
        _ = MHD_run(daemon)
        let timeout = bb_mhd_timeout_ms(daemon)
        if timeout == 0 {
            scheduleRun()
        } else {
            let milliseconds = timeout < 0 ? 1000 : min(Int(timeout), 1000)
            timer?.cancel()
            timer = MainLoop.after(Double(milliseconds) / 1000) { [weak self] in
                self?.timer = nil
                self?.run()
            }
        }
    }

    // MARK: Requests

    fileprivate func handle(
        connection: OpaquePointer, url: String, method: String, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>, state slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let raw = slot.pointee else {
            let state = RequestState()
            if let length = bb_mhd_header(connection, "Content-Length").map({ String(cString: $0) }),
                let size = Int(length), size > settings.bodyLimit
            {
                state.tooLarge = true
            }
            slot.pointee = Unmanaged.passRetained(state).toOpaque()
            return .YES
        }
        let state = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if !state.tooLarge, let upload {
                if state.body.count + uploadSize.pointee > settings.bodyLimit {
                    state.tooLarge = true
                    state.body = []
                } else {
                    upload.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                        state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
                    }
                }
            }
            uploadSize.pointee = 0
            return .YES
        }
        if state.tooLarge {
            return queue(.plain(413, "request body too large (limit \(settings.bodyLimit) bytes)"), on: connection)
        }
        let (path, _) = Self.splitPath(url)
        var request = HTTPRequest(method: method, path: path, body: state.body)
        request.headers = Self.values(of: connection, kind: .HEADER_KIND, lowercased: true)
        request.query = Self.values(of: connection, kind: .GET_ARGUMENT_KIND, lowercased: false)
        var address = [CChar](repeating: 0, count: 64)
        bb_mhd_client_address(connection, &address, address.count)
        request.clientAddress = String(
            decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch handler(request) {
        case .response(let response):
            return queue(response, on: connection)
        case .eventStream(let stream):
            return queue(stream, on: connection)
        }
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let made = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let made else { return .NO }
        for header in response.headers where Self.isHeaderSafe(header.name) && Self.isHeaderSafe(header.value) {
            _ = MHD_add_response_header(made, header.name, header.value)
        }
        let result = MHD_queue_response(connection, UInt32(response.status), made)
        MHD_destroy_response(made)
        answered[response.status / 100, default: 0] += 1
        return result
    }

    private func queue(_ stream: HTTPEventStream, on connection: OpaquePointer) -> MHD_Result {
        stream.connection = connection
        stream.server = self
        let context = Unmanaged.passRetained(stream).toOpaque()
        guard
            let made = MHD_create_response_from_callback(
                UInt64.max, 16 * 1024, streamReadCallback, context, streamFreeCallback)
        else {
            Unmanaged<HTTPEventStream>.fromOpaque(context).release()
            return .NO
        }
        _ = MHD_add_response_header(made, "Content-Type", "text/event-stream; charset=utf-8")
        _ = MHD_add_response_header(made, "Cache-Control", "no-store")
        _ = MHD_add_response_header(made, "X-Content-Type-Options", "nosniff")
        bb_mhd_connection_timeout(connection, 0)
        let result = MHD_queue_response(connection, 200, made)
        MHD_destroy_response(made)
        answered[2, default: 0] += 1
        return result
    }

    private static func splitPath(_ url: String) -> (String, String?) {
        guard let mark = url.firstIndex(of: "?") else { return (url, nil) }
        return (String(url[..<mark]), String(url[url.index(after: mark)...]))
    }

    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind, lowercased: Bool) -> [String: String]
    {
        let box = ValueBox(lowercased: lowercased)
        let context = Unmanaged.passUnretained(box).toOpaque()
        _ = MHD_get_connection_values(connection, kind, valueCallback, context)
        return box.values
    }

    /// No CR, LF or NUL: a header cannot be split.
    private static func isHeaderSafe(_ text: String) -> Bool {
        !text.utf8.contains { $0 == 10 || $0 == 13 || $0 == 0 }
    }

    fileprivate func completed(_ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let slot, let raw = slot.pointee else { return }
        Unmanaged<RequestState>.fromOpaque(raw).release()
        slot.pointee = nil
    }
}

/// One request's body as it arrives.
private final class RequestState {
    var body: [UInt8] = []
    var tooLarge = false
}

private final class ValueBox {
    let lowercased: Bool
    var values: [String: String] = [:]
    init(lowercased: Bool) { self.lowercased = lowercased }
}

// MARK: C callbacks (all called on the main thread, inside MHD_run)

/// The pointers a C callback receives, carried into `MainActor.assumeIsolated`: they are
/// only ever used on the main thread, inside the callback.
private struct CallbackArguments<T>: @unchecked Sendable {
    let value: T
}

private let accessCallback: MHD_AccessHandlerCallback = {
    context, connection, url, method, _, upload, uploadSize, slot in
    guard let context, let connection, let url, let method, let uploadSize, let slot else { return .NO }
    let arguments = CallbackArguments(value: (context, connection, url, method, upload, uploadSize, slot))
    return MainActor.assumeIsolated {
        let (context, connection, url, method, upload, uploadSize, slot) = arguments.value
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        return server.handle(
            connection: connection, url: String(cString: url), method: String(cString: method), upload: upload,
            uploadSize: uploadSize, state: slot)
    }
}

/// The NUL-terminated address text in `buffer`.
private func addressText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Whether a new connection from `address` is taken (``HTTPServerSettings/reservedConnections``).
private let acceptPolicy: MHD_AcceptPolicyCallback = { context, address, _ in
    guard let context else { return .YES }
    var text = [CChar](repeating: 0, count: 64)
    bb_sockaddr_text(address, &text, text.count)
    let arguments = CallbackArguments(value: (context, addressText(text)))
    return MainActor.assumeIsolated {
        let (context, client) = arguments.value
        return Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().admits(client) ? .YES : .NO
    }
}

/// Counts the open connections per client address.
private let connectionCallback: MHD_NotifyConnectionCallback = { context, connection, _, event in
    guard let context, let connection else { return }
    var text = [CChar](repeating: 0, count: 64)
    bb_mhd_client_address(connection, &text, text.count)
    let arguments = CallbackArguments(value: (context, addressText(text), event.rawValue == 0))
    MainActor.assumeIsolated {
        let (context, client, started) = arguments.value
        Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().connection(from: client, opened: started)
    }
}

private let completedCallback: MHD_RequestCompletedCallback = { context, _, slot, _ in
    guard let context else { return }
    let arguments = CallbackArguments(value: (context, slot))
    MainActor.assumeIsolated {
        let (context, slot) = arguments.value
        Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().completed(slot)
    }
}

private let valueCallback: MHD_KeyValueIterator = { context, _, key, value in
    guard let context, let key else { return .YES }
    let box = Unmanaged<ValueBox>.fromOpaque(context).takeUnretainedValue()
    let name = String(cString: key)
    box.values[box.lowercased ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
    return .YES
}

private let streamReadCallback: MHD_ContentReaderCallback = { context, _, buffer, capacity in
    guard let context, let buffer else { return -2 }
    let arguments = CallbackArguments(value: (context, buffer))
    return MainActor.assumeIsolated {
        let (context, buffer) = arguments.value
        return Unmanaged<HTTPEventStream>.fromOpaque(context).takeUnretainedValue().read(
            into: buffer, capacity: capacity)
    }
}

private let streamFreeCallback: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    let arguments = CallbackArguments(value: context)
    MainActor.assumeIsolated {
        let stream = Unmanaged<HTTPEventStream>.fromOpaque(arguments.value).takeRetainedValue()
        stream.finish()
    }
}
