import Testing

@testable import MQTT

@Suite struct MQTTConfigurationTests {
    @Test(arguments: [
        ("mqtt://broker.local", "broker.local", UInt16(1883), false),
        ("mqtt://broker.local:1884", "broker.local", 1884, false),
        ("mqtts://broker.local", "broker.local", 8883, true),
        ("MQTTS://10.0.0.2:9999/", "10.0.0.2", 9999, true),
        ("mqtt://[::1]:1883", "::1", 1883, false),
        ("mqtts://[fe80::1]", "fe80::1", 8883, true),
        ("  mqtt://localhost  ", "localhost", 1883, false),
    ])
    func parsesServerURLs(url: String, host: String, port: UInt16, tls: Bool) throws {
        let configuration = try MQTTConfiguration(url: url, clientID: "c")
        #expect(configuration.host == host)
        #expect(configuration.port == port)
        #expect((configuration.tls != nil) == tls)
        #expect(configuration.tls?.insecure != true)
    }

    @Test(arguments: [
        ("broker.local", MQTTConfigurationError.invalidURL("broker.local")),
        ("http://broker.local", .unsupportedScheme("http")),
        ("mqtt://", .missingHost("mqtt://")),
        ("mqtt://:1883", .missingHost("mqtt://:1883")),
        ("mqtt://host:0", .invalidPort("0")),
        ("mqtt://host:65536", .invalidPort("65536")),
        ("mqtt://host:12a", .invalidPort("12a")),
        ("mqtt://host:", .invalidPort("")),
        ("mqtt://host/path", .unexpectedPath("mqtt://host/path")),
        ("mqtt://host?x=1", .unexpectedPath("mqtt://host?x=1")),
        ("mqtt://a:b:c", .invalidHost("a:b:c")),
        ("mqtt://ho st", .invalidHost("ho st")),
        ("mqtt://[::1", .invalidURL("mqtt://[::1")),
        ("mqtt://user@host", .credentialsInURL("mqtt://***@host")),
        ("mqtts://user:hunter2@host:8883", .credentialsInURL("mqtts://***@host:8883")),
    ])
    func rejectsBadURLs(url: String, expected: MQTTConfigurationError) {
        #expect(throws: expected) { try MQTTConfiguration(url: url, clientID: "c") }
    }

    @Test func credentialsInTheURLAreNeverEchoed() {
        do {
            _ = try MQTTConfiguration(url: "mqtt://alice:hunter2@host", clientID: "c")
            Issue.record("accepted credentials in the URL")
        } catch {
            #expect(!error.description.contains("hunter2"))
            #expect(!error.description.contains("alice"))
            #expect(error.description.contains("set username and password separately"))
        }
    }

    @Test func passwordIsRedactedEverywhere() {
        var configuration = MQTTConfiguration(host: "h", clientID: "c")
        configuration.username = "alice"
        configuration.password = MQTTPassword("hunter2")
        configuration.lastWill = MQTTLastWill(topic: "t", payload: "p")
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [
            configuration.description, String(describing: configuration), String(reflecting: configuration), dumped,
            "\(configuration.password!)", String(reflecting: configuration.password!),
        ] {
            #expect(!text.contains("hunter2"))
        }
        #expect(configuration.description == "mqtt://h:1883 client_id=c protocol=5 user=alice password=<redacted>")
        #expect(configuration.password?.revealed == "hunter2")
    }

    @Test @MainActor func validationNamesTheProblem() {
        func error(_ change: (inout MQTTConfiguration) -> Void) -> MQTTConfigurationError? {
            var configuration = MQTTConfiguration(host: "h", clientID: "c")
            change(&configuration)
            do {
                try configuration.validate()
                return nil
            } catch { return error }
        }
        #expect(error { _ in } == nil)
        #expect(error { $0.clientID = "" } == .emptyClientID)
        #expect(error { $0.keepAlive = 3 } == .invalidKeepAlive(3))
        #expect(error { $0.keepAlive = 0 } == nil)
        #expect(error { $0.outgoingQueueLimit = 0 } == .invalidQueueLimit(0))
        #expect(error { $0.maximumInFlight = 0 } == .invalidMaximumInFlight(0))
        #expect(error { $0.password = MQTTPassword("x") } == .passwordWithoutUsername)
        #expect(error { $0.tls = MQTTTLSConfiguration(certificateFile: "c.pem") } == .incompleteClientCertificate)
        let will = error { $0.lastWill = MQTTLastWill(topic: "a/+", payload: "x") }
        if case .invalidWill(let reason) = will {
            #expect(reason.contains("+"), "\(reason)")
        } else {
            Issue.record("expected invalidWill, got \(String(describing: will))")
        }
        #expect(throws: MQTTConfigurationError.emptyClientID) {
            _ = try MQTTClient(configuration: MQTTConfiguration(host: "h", clientID: ""))
        }
    }

    @Test func urlRoundTripsThroughTheConfiguration() throws {
        #expect(try MQTTConfiguration(url: "mqtts://[::1]:8884", clientID: "c").url == "mqtts://[::1]:8884")
        #expect(try MQTTConfiguration(url: "mqtt://example.org", clientID: "c").url == "mqtt://example.org:1883")
    }

    @Test func serverAddressIsTheSharedParser() throws {
        let address = try MQTTServerAddress(parsing: "MQTTS://[fe80::1]/")
        #expect(address == MQTTServerAddress(host: "fe80::1", port: 8883, usesTLS: true))
        #expect(address.description == "mqtts://[fe80::1]:8883")
        #expect(MQTTServerAddress(host: "broker", port: 1884).description == "mqtt://broker:1884")
        #expect(throws: MQTTConfigurationError.credentialsInURL("mqtt://***@b")) {
            try MQTTServerAddress(parsing: "mqtt://u:p@b")
        }
    }
}
