// swift-tools-version:6.0
import PackageDescription

/// Pure-core targets import Foundation(Essentials) and each other, nothing else.
/// C libraries are reached only through their wrapper targets (DBus, MQTT, Config), the operating
/// system only through `SystemCalls`, `MainLoop` and those wrappers.
/// Linux only: there is no `platforms:` claim, because the wrappers use epoll, BlueZ and Glibc.
///
/// Release builds of `boardbridge` and `boardbridge-hall` (memory goal: under 20 MB resident, issue #8):
/// - `-static-stdlib`: the Swift runtime, Dispatch and FoundationEssentials are linked
///   in, so none of the ten Swift shared libraries is loaded, relocated and
///   symbol-resolved at start-up (about 3.5 MB less resident memory);
/// - lld with `-z pack-relative-relocs`: the ~41,000 relative relocations take 8 KB
///   (DT_RELR, glibc 2.36+) instead of a 1 MB `.rela.dyn` read at every start
///   (about 1.1 MB less); gold, the default linker, cannot pack them.
/// `-static-stdlib` links only what `static-stdlib-args.lnk` names (swiftCore, Dispatch,
/// BlocksRuntime); every other static runtime library a linked archive needs is named
/// here, on purpose, so the link never depends on which modules our own code imports:
/// - `_FoundationCShims`, `_FoundationCollections`: FoundationEssentials' own helpers;
/// - `swiftSynchronization`: FoundationEssentials uses `Mutex` (NotificationCenter,
///   _ThreadLocal); without it the link fails as soon as none of our modules imports
///   Synchronization (issue #14).
let releaseLinking: [LinkerSetting] = [
    .unsafeFlags(
        ["-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
        .when(platforms: [.linux], configuration: .release)),
    .linkedLibrary("_FoundationCShims", .when(platforms: [.linux], configuration: .release)),
    .linkedLibrary("_FoundationCollections", .when(platforms: [.linux], configuration: .release)),
    .linkedLibrary("swiftSynchronization", .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "BoardBridge",
    products: [
        .executable(name: "boardbridge", targets: ["boardbridge"]),
        .executable(name: "boardbridge-hall", targets: ["boardbridge-hall"]),
        .executable(name: "boardsim", targets: ["boardsim"]),
        .executable(name: "boardbridge-bench", targets: ["boardbridge-bench"]),
    ],
    targets: [
        // MARK: C system libraries (Debian -dev packages, found through pkg-config)
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),

        // MARK: Pure core (no I/O)
        .target(name: "JSON"),
        .target(name: "BoardKit"),
        .target(name: "Chess", dependencies: ["BoardKit"]),
        .target(name: "Kernel", dependencies: ["BoardKit", "Chess", "JSON"]),
        .target(name: "Adapters", dependencies: ["BoardKit"]),
        .target(name: "Emulation", dependencies: ["BoardKit", "Chess", "Adapters"]),
        .target(name: "Broadcast", dependencies: ["Chess"]),

        // MARK: C wrappers
        // The operating-system calls above the C wrappers (files, sockets, host name), swift-system's shape.
        .target(name: "CSystemCalls"),
        .target(name: "SystemCalls", dependencies: ["CSystemCalls"]),
        .target(name: "Logging", dependencies: ["JSON", "SystemCalls"]),
        .target(name: "CMainQueue"),
        // The benchmark's malloc counter (it interposes malloc: linked into the bench only).
        .target(name: "CMallocCounter"),
        .target(name: "MainLoop", dependencies: ["CMainQueue"]),
        .target(name: "Serial", dependencies: ["SystemCalls"]),
        // The one board-link runtime: link status, scheduler and timers, the paced writer, the
        // reconnect runner; every transport (BlueZ LE and RFCOMM, serial) runs on it.
        .target(name: "BoardLink", dependencies: ["BoardKit", "Logging", "MainLoop", "SystemCalls"]),
        .target(name: "SerialTransport", dependencies: ["Serial", "BoardKit", "BoardLink", "MainLoop", "Logging"]),
        .target(name: "DBus", dependencies: ["CDBus", "MainLoop"]),
        .target(name: "MQTT", dependencies: ["CMosquitto", "MainLoop", "Logging", "SystemCalls"]),
        .target(name: "Curl", dependencies: ["CCurl"]),
        .target(name: "BroadcastRelay", dependencies: ["Broadcast", "Curl", "MainLoop"]),
        .target(
            name: "Config",
            dependencies: ["CYAML", "BoardKit", "Kernel", "MQTT", "JSON", "Logging", "SystemCalls", "Broadcast"]),
        .target(name: "HTTP", dependencies: ["CMicroHTTPD", "MainLoop"]),

        // MARK: Platform and product
        .target(
            name: "BlueZ",
            dependencies: ["DBus", "BoardKit", "BoardLink", "Adapters", "MainLoop", "Logging", "SystemCalls"]),
        .target(
            name: "FakeBlueZ",
            dependencies: ["DBus", "BoardKit", "Adapters", "Emulation", "Chess", "MainLoop", "Serial"]),
        .target(
            name: "Bridge",
            dependencies: [
                "Contract", "JSON", "Logging", "SystemCalls", "BoardKit", "Chess", "Kernel", "Adapters", "BlueZ",
                "BoardLink", "MQTT", "Config", "SerialTransport", "Serial", "MainLoop",
            ]
        ),
        // The MQTT contract: topics, payloads (encoded and decoded), commands, health keys,
        // time formats. `Bridge` publishes it, `Hall` reads it; neither needs the other.
        .target(name: "Contract", dependencies: ["JSON", "Logging", "BoardKit", "Chess", "Kernel"]),
        .target(
            name: "Hall",
            dependencies: [
                "Contract", "HTTP", "MQTT", "Config", "MainLoop", "JSON", "Logging", "Broadcast", "BroadcastRelay",
                "Chess", "SystemCalls",
            ],
            // The page: one HTML document with its CSS and JavaScript, compiled into the binary.
            resources: [.embedInCode("Resources/hall.html"), .embedInCode("Resources/hall-health.js")]),
        .target(
            name: "BridgeCLI",
            dependencies: ["JSON", "Logging", "SystemCalls", "BoardKit", "Adapters", "Config", "Contract", "Bridge"]),
        // The daemon: every command but `hall`, which it execs (`HallExecutable`). It must not
        // depend on `Hall`, `HTTP`, `Curl` or `BroadcastRelay`: their libraries (libmicrohttpd
        // with GnuTLS, libcurl with Kerberos, LDAP, ssh2, …) are mapped and initialised at
        // start in every process that links them, ~3.4 MB resident (README, memory goal).
        .executableTarget(
            name: "boardbridge", dependencies: ["BridgeCLI", "MainLoop", "SystemCalls"],
            linkerSettings: releaseLinking),
        // `boardbridge hall`: the hall view and its broadcast push, the only executable that
        // links libmicrohttpd and libcurl.
        .executableTarget(
            name: "boardbridge-hall", dependencies: ["BridgeCLI", "Hall", "Logging", "MainLoop", "SystemCalls"],
            linkerSettings: releaseLinking),
        .executableTarget(name: "boardsim", dependencies: ["FakeBlueZ"]),
        .executableTarget(
            name: "boardbridge-bench",
            dependencies: [
                "BoardKit", "Chess", "Kernel", "Adapters", "Emulation", "MQTT", "DBus", "BlueZ", "MainLoop", "Bridge",
                "TestSupport", "Contract", "JSON",
                "Curl",
                // The start-up floor is made of boardsim's radio times (`RadioTime`, its wire form).
                "FakeBlueZ",
                // The wake-up floor's bare loop calls the same epoll helpers as MainLoop.
                "CMainQueue",
                // Allocations per notification and per move are counted.
                "CMallocCounter",
                // The broadcast section times the hall's relay outputs in process.
                "Hall", "Broadcast", "Config", "HTTP",
            ]
        ),

        // MARK: Tests
        .target(
            name: "TestSupport", dependencies: ["BoardKit", "BoardLink", "Chess", "Adapters", "Emulation", "DBus"]),
        // Swift Testing traits (tests only: the benchmark links TestSupport, not Testing).
        .target(name: "TestScheduling"),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "TestSupport"]),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls"]),
        .testTarget(name: "LoggingTests", dependencies: ["Logging"]),
        .testTarget(name: "BoardKitTests", dependencies: ["BoardKit"]),
        .testTarget(name: "BoardLinkTests", dependencies: ["BoardLink", "BoardKit", "Logging", "TestSupport"]),
        .testTarget(name: "ChessTests", dependencies: ["Chess", "TestSupport"]),
        .testTarget(name: "BroadcastTests", dependencies: ["Broadcast", "Chess"]),
        .testTarget(
            name: "CurlTests", dependencies: ["Curl", "BroadcastRelay", "Broadcast", "TestSupport"],
            exclude: ["relay_stub.py"]),
        .testTarget(
            name: "KernelTests", dependencies: ["Kernel", "Chess", "BoardKit", "TestSupport", "TestScheduling"],
            // The fuzzer's seed files, read by path.
            exclude: ["Corpus"]),
        .testTarget(name: "AdaptersTests", dependencies: ["Adapters", "BoardKit", "TestSupport", "TestScheduling"]),
        .testTarget(
            name: "EmulationTests",
            dependencies: ["Emulation", "Adapters", "Kernel", "Chess", "BoardKit", "TestSupport", "TestScheduling"]
        ),
        .testTarget(name: "MainLoopTests", dependencies: ["MainLoop"]),
        .testTarget(name: "SerialTests", dependencies: ["Serial"]),
        .testTarget(
            name: "SerialTransportTests",
            dependencies: ["SerialTransport", "Serial", "Adapters", "Emulation", "BoardKit", "MainLoop", "TestSupport"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestSupport"]),
        .testTarget(
            name: "BlueZTests",
            dependencies: [
                "BlueZ", "BoardLink", "FakeBlueZ", "DBus", "Adapters", "BoardKit", "Chess", "Logging", "MainLoop",
                "SystemCalls", "TestSupport",
            ]
        ),
        .testTarget(
            name: "FakeBlueZTests",
            dependencies: ["FakeBlueZ", "DBus", "Emulation", "Adapters", "BoardKit", "Chess", "TestSupport"]
        ),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT", "Logging", "TestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "TestSupport"]),
        .testTarget(
            name: "HallTests",
            dependencies: [
                "Hall", "Contract", "JSON", "Logging", "TestSupport", "Config", "Broadcast", "HTTP", "Chess",
            ]),
        .testTarget(
            name: "ConfigTests",
            dependencies: ["Config", "JSON", "BoardKit", "Kernel", "TestSupport", "TestScheduling"],
            exclude: ["Corpus"]),
        .testTarget(
            name: "BridgeTests",
            dependencies: [
                "Bridge", "Contract", "JSON", "Logging", "Adapters", "Config", "Kernel", "Chess", "BoardKit",
                "Emulation",
                "TestSupport", "TestScheduling", "BlueZ", "BoardLink", "SerialTransport", "MainLoop",
            ],
            exclude: ["Corpus"]
        ),
        .testTarget(name: "CLITests", dependencies: ["BridgeCLI", "Contract", "TestSupport"]),
        .testTarget(name: "BenchTests", dependencies: ["boardbridge-bench", "TestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["Contract", "JSON", "MQTT", "Chess", "BoardKit", "TestSupport", "TestScheduling"]),
    ],
    swiftLanguageModes: [.v6]
)

// Every Swift target: an `import` is internal unless written `public import` (only where a
// module's public API shows a type of the imported module), and an existential is spelled
// `any P`; so the layering above is checked by the compiler (issue #17).
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("ExistentialAny"),
        ]
}

// The chess rules and the game kernel are optimized in debug builds too. They are pure
// Swift with no `assert` (every check is a `precondition`, kept at -O), and the property
// tests spend nearly all their time in them (a gap's line search, move generation): at
// -Onone one gap property test took five minutes of the test run's ten. Everything else
// (the tests themselves, the I/O modules) stays at -Onone for the debugger.
for target in package.targets where ["Chess", "Kernel"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-O"], .when(configuration: .debug))]
}
