public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Finding the outside programs integration tests need, and the CI rule: under
/// `CI=true` a missing program is a failure, never a silent skip.
public enum TestTools {
    /// Whether the tests run under CI (`CI=true`).
    public static var isCI: Bool {
        ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true"
    }

    /// The full path of `name` found on `PATH` (plus `/usr/sbin` and `/sbin`), or `nil`.
    public static func path(of name: String) -> String? {
        let pathVariable = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = pathVariable.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"]
        for directory in directories {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Whether an integration suite needing `names` should run: always under CI (so a
    /// missing program fails the test loudly), elsewhere only when all are installed.
    public static func available(_ names: String...) -> Bool {
        isCI || names.allSatisfy { path(of: $0) != nil }
    }

    /// The path of `name`, or an error naming it (use inside a test).
    public static func require(_ name: String) throws -> String {
        guard let found = path(of: name) else { throw MissingTool(name: name) }
        return found
    }

    /// The directory holding the package's built products (where `boardsim` and
    /// `boardbridge` are), found from the running test bundle.
    public static var productsDirectory: URL {
        if let override = ProcessInfo.processInfo.environment["BOARDBRIDGE_PRODUCTS"] {
            return URL(fileURLWithPath: override)
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // xctest bundles live in <products>/<Name>.xctest/…; swift-testing runners in <products>.
        while directory.path != "/" {
            if FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("boardsim").path)
                || FileManager.default.isExecutableFile(
                    atPath: directory.appendingPathComponent("boardbridge").path)
            {
                return directory
            }
            directory = directory.deletingLastPathComponent()
        }
        return executable.deletingLastPathComponent()
    }

    /// A product built by this package (`boardsim`, `boardbridge`), or an error.
    public static func product(_ name: String) throws -> String {
        let path = productsDirectory.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw MissingTool(name: path) }
        return path
    }

    /// A TCP port on 127.0.0.1 that is free now and was not handed out before in this
    /// process. It is taken below the kernel's ephemeral range (32768 and up by default), so
    /// no outgoing connection takes it meanwhile, and never twice: a port the kernel picks
    /// for `bind(0)` is free again once closed, and two tests running at once (or a test's
    /// own client connections) could be given it before the server meant for it binds it.
    public static func freeLoopbackPort() -> UInt16 {
        while true {
            let port = UInt16.random(in: 20_000..<32_000)
            guard handedOutPorts.withLock({ $0.insert(port).inserted }), isFree(port: port) else { continue }
            return port
        }
    }

    private static let handedOutPorts = Mutex<Set<UInt16>>([])

    /// Whether a TCP socket can bind 127.0.0.1:`port` now.
    private static func isFree(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        } == 0
    }

    /// Whether a TCP connection to 127.0.0.1:`port` succeeds now (a server listens there).
    public static func acceptsConnections(port: UInt16) -> Bool {
        let fd = LoopbackSocket.tcp()
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return LoopbackSocket.connect(fd, port: port)
    }

    /// Writes `count` copies of `line`, one a line, then `last` if given, to `url`: the input
    /// of a `mosquitto_pub -l` flood.
    public static func writeLines(_ line: String, count: Int, last: String? = nil, to url: URL) throws {
        var data = Data()
        let bytes = Array((line + "\n").utf8)
        data.reserveCapacity(bytes.count * count)
        for _ in 0..<count { data.append(contentsOf: bytes) }
        if let last { data.append(contentsOf: Array((last + "\n").utf8)) }
        try data.write(to: url)
    }

    /// A fresh temporary directory.
    public static func temporaryDirectory(_ prefix: String = "boardbridge-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A program an integration test needs is not installed.
public struct MissingTool: Error, CustomStringConvertible {
    /// The program's name or path.
    public let name: String
    /// A message that says what to install.
    public var description: String {
        "required program \(name) not found (run deploy/install-deps.sh, or build the package first)"
    }
}
