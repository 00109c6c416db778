import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue #28: tests run in parallel in one process, so a child a test starts must not
/// inherit the descriptors other tests hold. One that did kept them open for its life: the
/// socket pair through which Foundation's `Process` learns that its child exited never
/// closed, and `waitUntilExit()` of a `bluetoothctl` that had quit never returned (the whole
/// suite hung); a binary open for writing elsewhere could not be executed (ETXTBSY).
@Suite struct ManagedProcessTests {
    @Test func aChildHoldsNoDescriptorButItsStandardThree() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)  // no close-on-exec, like Foundation's socket pairs
        defer { for end in ends { close(end) } }
        let child = ManagedProcess(
            executable: "/bin/sh", arguments: ["-c", #"for f in /proc/$$/fd/*; do echo "fd ${f##*/}"; done"#])
        try child.start()
        #expect(await child.exitStatus(within: .seconds(30)) == 0)
        let descriptors = Set(
            child.output.split(separator: "\n").filter { $0.hasPrefix("fd ") }.map { $0.dropFirst(3) })
        // Besides 0, 1 and 2, only the directory the shell's glob reads is open.
        #expect(!descriptors.contains(Substring(String(ends[0]))), "\(child.output)")
        #expect(!descriptors.contains(Substring(String(ends[1]))), "\(child.output)")
        #expect(descriptors.isSuperset(of: ["0", "1", "2"]) && descriptors.count <= 4, "\(child.output)")
    }
}
