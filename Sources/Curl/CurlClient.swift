internal import CCurl
import Dispatch

/// HTTP requests through libcurl's easy interface, one at a time on a queue of the
/// client's own (a relay push is one request every second or so; nothing here waits on
/// the main thread). Redirects are not followed; the system's CA certificates verify
/// `https://` servers.
public final class CurlClient: Sendable {
    private let queue: DispatchQueue

    /// libcurl's global set-up, done once before the first handle.
    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// A client whose requests run on a queue labelled `label`.
    public init(label: String = "boardbridge.curl") {
        queue = DispatchQueue(label: label)
    }

    /// Performs `request`; returns the response (of any status) or why there was none.
    public func perform(_ request: CurlRequest) async -> Result<CurlResponse, CurlError> {
        await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Self.performNow(request))
            }
        }
    }

    /// Performs `request` on the calling thread (`curl_easy_perform`).
    static func performNow(_ request: CurlRequest) -> Result<CurlResponse, CurlError> {
        guard initialised, let handle = curl_easy_init() else {
            return .failure(CurlError(code: -1, function: "curl_easy_init", message: "libcurl could not start"))
        }
        defer { curl_easy_cleanup(handle) }
        let sink = ResponseSink(limit: request.maxResponseBytes)
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for header in request.headers {
            headerList = curl_slist_append(headerList, "\(header.name): \(header.value)")
        }
        // An empty `Expect:` stops libcurl from waiting for `100 Continue` on large bodies.
        headerList = curl_slist_append(headerList, "Expect:")
        var body = request.body
        let code: CURLcode = body.withUnsafeMutableBytes { bytes in
            var setup = CURLE_OK
            func set(_ result: CURLcode) { if setup == CURLE_OK { setup = result } }
            set(bb_curl_setopt_string(handle, CURLOPT_URL, request.url))
            set(bb_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method))
            set(bb_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))
            set(bb_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
            set(bb_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
            set(bb_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(request.timeout * 1000)))
            set(bb_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout * 1000)))
            set(bb_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
            if !request.body.isEmpty || request.method == "POST" || request.method == "PUT" {
                set(bb_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, bytes.baseAddress))
                set(bb_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, bytes.count))
            }
            set(bb_curl_setopt_callback(handle, CURLOPT_WRITEFUNCTION, ResponseSink.bodyCallback))
            set(bb_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context.toOpaque()))
            set(bb_curl_setopt_callback(handle, CURLOPT_HEADERFUNCTION, ResponseSink.headerCallback))
            set(bb_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context.toOpaque()))
            guard setup == CURLE_OK else { return setup }
            return curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            let message =
                sink.overflowed
                ? "the response is longer than \(request.maxResponseBytes) bytes"
                : String(cString: curl_easy_strerror(code))
            return .failure(CurlError(code: Int32(code.rawValue), function: "curl_easy_perform", message: message))
        }
        var status = 0
        _ = bb_curl_response_code(handle, &status)
        return .success(CurlResponse(status: status, headers: sink.headers, body: sink.body))
    }
}

/// Collects a response while libcurl runs (on the client's queue only).
private final class ResponseSink {
    let limit: Int
    var body: [UInt8] = []
    var headers: [CurlHeader] = []
    var overflowed = false

    init(limit: Int) {
        self.limit = limit
    }

    /// `CURLOPT_WRITEFUNCTION`: appends body bytes; a short count stops the transfer.
    static let bodyCallback: bb_curl_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard sink.body.count + length <= sink.limit else {
            sink.overflowed = true
            return 0
        }
        data.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            sink.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
        }
        return length
    }

    /// `CURLOPT_HEADERFUNCTION`: one header line a call (status lines and the blank line
    /// too); a new status line (after `100 Continue` or a redirect) starts afresh.
    static let headerCallback: bb_curl_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        let line = data.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
        }
        if line.hasPrefix("HTTP/") {
            sink.headers = []
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t", "\r\n", "\n", "\r"])
            if sink.headers.count < 100 { sink.headers.append(CurlHeader(name: name, value: value)) }
        }
        return length
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        var text = self
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
