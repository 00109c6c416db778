#if canImport(Glibc)
    import Glibc
#endif

/// Datagrams to a unix socket address (the `sd_notify` protocol's transport).
public enum UnixDatagram {
    /// Sends `bytes` as one datagram to the socket at `path` from a fresh unbound socket
    /// (`sendto(2)` with `MSG_NOSIGNAL`). A path starting with `@` names an abstract socket
    /// (the `@` becomes the leading NUL). Returns the byte count sent.
    @discardableResult
    public static func send(_ bytes: some Collection<UInt8>, to path: String) throws(Errno) -> Int {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(path.utf8)
        let isAbstract = pathBytes.first == UInt8(ascii: "@")
        if isAbstract { pathBytes[0] = 0 }
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .fileNameTooLong }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (isAbstract ? 0 : 1))
        let socket = try SystemCall.retryingInterrupts {
            Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        defer { _ = close(socket) }
        let message = Array(bytes)
        let sent = message.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    Result { () throws(Errno) -> Int in
                        try SystemCall.retryingInterrupts {
                            sendto(socket, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                        }
                    }
                }
            }
        }
        return try sent.get()
    }
}
