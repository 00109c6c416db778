import DBus
import TestSupport
import Testing

/// The shared ``capturedError(_:)`` helper: the D-Bus error, nothing, or a marked stand-in.
@Suite @MainActor struct CapturedErrorTests {
    struct Other: Error {}

    @Test func returnsTheDBusErrorOrNothing() async {
        let thrown = DBusError(name: DBusError.Name.failed, message: "boom")
        #expect(await capturedError { throw thrown } == thrown)
        #expect(await capturedError {} == nil)
    }

    @Test func anotherErrorComesBackUnderTheUnexpectedName() async {
        let error = await capturedError { throw Other() }
        #expect(error?.name == unexpectedErrorName)
        #expect(error?.message.contains("Other") == true)
    }
}
