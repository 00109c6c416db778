import BoardKit
import BoardLink
import Foundation
import Logging
import TestSupport
import Testing

/// A connected stream socket pair: the link's end and the board's.
@MainActor
private final class Pair {
    let link: Int32
    let board: Int32

    init() throws {
        var descriptors: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else { throw POSIXError(.EIO) }
        link = descriptors[0]
        board = descriptors[1]
    }

    func boardSends(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { send(board, $0.baseAddress, $0.count, 0) } == bytes.count)
    }

    /// What the board has received so far (without blocking).
    func boardReceived() -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { recv(board, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
    }
}

@MainActor
@Suite struct StreamLinkTests {
    private func open(
        _ pair: Pair, onClose: @escaping @MainActor (String) -> Void = { _ in }
    ) -> (
        StreamLink, () -> String
    ) {
        var text = ""
        let link = StreamLink(
            stream: SocketByteStream(descriptor: pair.link, endOfFile: "the board closed the link"),
            adapter: RawBytesAdapter(), scheduler: MainLoopScheduler(), logger: .silent,
            onEvents: { events in
                for case .raw(let bytes) in events { text += String(decoding: bytes, as: UTF8.self) }
            },
            onClose: onClose)
        return (link, { text })
    }

    @Test func readsFeedTheAdapterAndItsResponsesAndCommandsAreWritten() async throws {
        let pair = try Pair()
        defer { close(pair.board) }
        let (link, received) = open(pair)
        defer { link.close() }
        link.runHandshake(isReconnect: false)
        #expect(link.send(.requestState))
        #expect(!link.send(.clearIndications))
        var written = ""
        #expect(
            await eventually(timeout: .seconds(30)) {
                written += pair.boardReceived()
                return written == "HS"
            })
        pair.boardSends("Aboard")
        #expect(await eventually(timeout: .seconds(30)) { received() == "Aboard" })
        // The adapter's response to "A…" went out on the same writer.
        #expect(
            await eventually(timeout: .seconds(30)) {
                written += pair.boardReceived()
                return written == "HSa"
            })
    }

    @Test func theEndOfTheStreamIsReportedOnceAndClosesIt() async throws {
        let pair = try Pair()
        var reasons: [String] = []
        let (link, _) = open(pair) { reasons.append($0) }
        close(pair.board)
        #expect(await eventually(timeout: .seconds(30)) { !reasons.isEmpty })
        #expect(reasons == ["the board closed the link"])
        #expect(!link.isOpen)
        #expect(!link.send(.requestState))
        link.close()
        #expect(reasons.count == 1)
    }

    @Test func closeReportsNothingAndClosesTheStream() async throws {
        let pair = try Pair()
        defer { close(pair.board) }
        var reasons: [String] = []
        let (link, _) = open(pair) { reasons.append($0) }
        link.close()
        link.close()
        var byte: UInt8 = 0
        #expect(recv(pair.board, &byte, 1, Int32(MSG_DONTWAIT)) == 0)
        // The watch was removed before close() returned: nothing can report now.
        #expect(reasons.isEmpty)
    }
}
