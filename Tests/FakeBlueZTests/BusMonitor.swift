import Foundation
import TestSupport

/// `dbus-monitor --monitor` on a private bus: every message (calls, replies, errors, signals)
/// in the order the daemon routed them, which is the order one client's connection sees.
/// Stopped by PID.
final class BusMonitor {
    /// One message as `dbus-monitor` prints it: the header line and the indented body lines.
    struct Message {
        var header: String
        var body: [String]

        /// A header field such as `serial`, `reply_serial`, `member`, `path`, `sender`.
        func field(_ name: String) -> String? {
            let separators = CharacterSet(charactersIn: " ;")
            for token in header.components(separatedBy: separators) where token.hasPrefix(name + "=") {
                return String(token.dropFirst(name.count + 1))
            }
            return nil
        }

        var kind: String {
            for prefix in ["method call", "method return", "error", "signal"] where header.hasPrefix(prefix) {
                return prefix
            }
            return ""
        }
    }

    /// `dbus-monitor` did not become a monitor.
    struct StartFailure: Error {
        var output: String
    }

    private let process: ManagedProcess

    /// Starts monitoring the bus at `address` and waits until the monitor is in place.
    init(address: String) async throws {
        process = ManagedProcess(
            executable: try TestTools.require("dbus-monitor"), arguments: ["--address", address, "--monitor"])
        try process.start()
        // A monitor loses its own unique name when it becomes one.
        guard await process.output(containing: "NameLost", within: .seconds(10)) else {
            process.stop()
            throw StartFailure(output: process.output)
        }
    }

    /// Every message so far, in wire order.
    var messages: [Message] {
        var result: [Message] = []
        for line in process.output.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.first == " " {
                if !result.isEmpty { result[result.count - 1].body.append(String(line)) }
            } else {
                result.append(Message(header: String(line), body: []))
            }
        }
        return result
    }

    /// The indices of the last call of `member` on `path` and of its reply (return or error).
    func callAndReply(member: String, path: String) -> (call: Int, reply: Int)? {
        let all = messages
        guard
            let call = all.lastIndex(where: {
                $0.kind == "method call" && $0.field("member") == member && $0.field("path") == path
            }),
            let serial = all[call].field("serial"),
            let reply = all.indices.first(where: {
                $0 > call && ["method return", "error"].contains(all[$0].kind)
                    && all[$0].field("reply_serial") == serial
            })
        else { return nil }
        return (call, reply)
    }

    /// The index of the first `PropertiesChanged` on `path` after `start` whose body names
    /// `property`.
    func propertiesChanged(path: String, property: String, after start: Int) -> Int? {
        let all = messages
        return all.indices.first { index in
            index > start && all[index].kind == "signal" && all[index].field("member") == "PropertiesChanged"
                && all[index].field("path") == path
                && all[index].body.contains { $0.contains("\"\(property)\"") }
        }
    }

    /// Stops the monitor (by PID).
    func stop() {
        process.stop()
    }

    deinit {
        process.stop()
    }
}
