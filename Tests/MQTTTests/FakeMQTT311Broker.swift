import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal broker that speaks only MQTT 3.1.1, for the protocol fallback test (mosquitto
/// cannot be told to refuse MQTT 5). It answers a protocol level 5 CONNECT with the 3.1.1
/// CONNACK "unacceptable protocol version" (return code 1) and closes, as a 3.1.1-only
/// broker does; it accepts a level 4 CONNECT and then answers PINGREQ until the client
/// leaves. It records the protocol level of every CONNECT.
final class FakeMQTT311Broker: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var levels: [UInt8] = []
    private var published: [(topic: String, payload: [UInt8])] = []
    private var clients: [Int32] = []
    private var stopped = false

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 8) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The protocol levels of the CONNECT packets received, in order.
    var protocolLevels: [UInt8] { lock.withLock { levels } }

    /// The PUBLISH packets received (parsed as MQTT 3.1.1: no properties).
    var publications: [(topic: String, payload: [UInt8])] { lock.withLock { published } }

    /// Closes the listener and every open connection. Connections are shut down under the
    /// lock that also guards their closing, so a descriptor number that was closed and
    /// reused elsewhere in the process is never touched.
    func stop() {
        lock.withLock {
            stopped = true
            for client in clients { shutdown(client, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit { close(listener) }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client >= 0 { _ = fcntl(client, F_SETFD, FD_CLOEXEC) }
            let accepted = lock.withLock {
                guard !stopped, client >= 0 else { return false }
                clients.append(client)
                return true
            }
            guard accepted else {
                if client >= 0 { close(client) }
                if lock.withLock({ stopped }) { return }
                continue
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer {
            lock.withLock {
                clients.removeAll { $0 == client }
                close(client)
            }
        }
        guard let (type, body) = readPacket(client), type & 0xF0 == 0x10, body.count >= 7 else { return }
        let level = body[6]
        lock.withLock { levels.append(level) }
        guard level == 4 else {
            write(client, [0x20, 0x02, 0x00, 0x01])
            return
        }
        write(client, [0x20, 0x02, 0x00, 0x00])
        while let (type, body) = readPacket(client) {
            switch type & 0xF0 {
            case 0x30: acknowledgePublish(client, flags: type & 0x0F, body: body)
            case 0xC0: write(client, [0xD0, 0x00])  // PINGREQ → PINGRESP
            case 0xE0: return  // DISCONNECT
            default: continue
            }
        }
    }

    private func acknowledgePublish(_ client: Int32, flags: UInt8, body: [UInt8]) {
        guard body.count >= 2 else { return }
        let topicLength = Int(body[0]) << 8 | Int(body[1])
        let qos = (flags >> 1) & 0x03
        let idLength = qos > 0 ? 2 : 0
        guard body.count >= 2 + topicLength + idLength else { return }
        let topic = String(decoding: body[2..<(2 + topicLength)], as: UTF8.self)
        let payload = Array(body[(2 + topicLength + idLength)...])
        lock.withLock { published.append((topic, payload)) }
        if qos == 1 { write(client, [0x40, 0x02, body[2 + topicLength], body[3 + topicLength]]) }
    }

    private func write(_ client: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private func readPacket(_ client: Int32) -> (UInt8, [UInt8])? {
        guard let header = readBytes(client, 1)?.first else { return nil }
        var length = 0
        var multiplier = 1
        for _ in 0..<4 {
            guard let byte = readBytes(client, 1)?.first else { return nil }
            length += Int(byte & 0x7F) * multiplier
            multiplier *= 128
            if byte & 0x80 == 0 { break }
        }
        guard let body = readBytes(client, length) else { return nil }
        return (header, body)
    }

    private func readBytes(_ client: Int32, _ count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let received = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress! + filled, count - filled, 0) }
            if received <= 0 { return nil }
            filled += received
        }
        return buffer
    }
}
