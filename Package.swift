// swift-tools-version:6.0
import PackageDescription

/// Pure-core targets import Foundation(Essentials) and each other, nothing else.
/// C libraries are reached only through their wrapper targets (DBus, MQTT, Config).
let package = Package(
    name: "BoardBridge",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "boardbridge", targets: ["boardbridge"]),
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
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),

        // MARK: Pure core (no I/O)
        .target(name: "BoardKit"),
        .target(name: "Chess", dependencies: ["BoardKit"]),
        .target(name: "Kernel", dependencies: ["BoardKit", "Chess"]),
        .target(name: "Adapters", dependencies: ["BoardKit"]),
        .target(name: "Emulation", dependencies: ["BoardKit", "Chess", "Adapters"]),

        // MARK: C wrappers
        .target(name: "CMainQueue"),
        .target(name: "MainLoop", dependencies: ["CMainQueue"]),
        .target(name: "DBus", dependencies: ["CDBus"]),
        .target(name: "MQTT", dependencies: ["CMosquitto"]),
        .target(name: "Config", dependencies: ["CYAML", "BoardKit", "Kernel", "MQTT"]),

        // MARK: Platform and product
        .target(name: "BlueZ", dependencies: ["DBus", "BoardKit", "Adapters", "MainLoop"]),
        .target(name: "FakeBlueZ", dependencies: ["DBus", "BoardKit", "Adapters", "Emulation", "Chess"]),
        .target(
            name: "Bridge",
            dependencies: ["BoardKit", "Chess", "Kernel", "Adapters", "BlueZ", "MQTT", "Config"]
        ),
        .target(name: "BridgeCLI", dependencies: ["BoardKit", "Adapters", "Config", "Bridge"]),
        .executableTarget(name: "boardbridge", dependencies: ["BridgeCLI", "MainLoop"]),
        .executableTarget(name: "boardsim", dependencies: ["FakeBlueZ"]),
        .executableTarget(
            name: "boardbridge-bench",
            dependencies: [
                "BoardKit", "Chess", "Kernel", "Adapters", "Emulation", "MQTT", "DBus", "MainLoop", "TestSupport",
            ]
        ),

        // MARK: Tests
        .target(name: "TestSupport", dependencies: ["BoardKit", "Adapters", "Emulation", "DBus"]),
        .testTarget(name: "BoardKitTests", dependencies: ["BoardKit"]),
        .testTarget(name: "ChessTests", dependencies: ["Chess", "TestSupport"]),
        .testTarget(name: "KernelTests", dependencies: ["Kernel", "Chess", "BoardKit", "TestSupport"]),
        .testTarget(name: "AdaptersTests", dependencies: ["Adapters", "BoardKit", "TestSupport"]),
        .testTarget(
            name: "EmulationTests",
            dependencies: ["Emulation", "Adapters", "Kernel", "Chess", "BoardKit", "TestSupport"]
        ),
        .testTarget(name: "MainLoopTests", dependencies: ["MainLoop"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestSupport"]),
        .testTarget(
            name: "BlueZTests",
            dependencies: ["BlueZ", "FakeBlueZ", "DBus", "Adapters", "BoardKit", "Chess", "TestSupport"]
        ),
        .testTarget(
            name: "FakeBlueZTests",
            dependencies: ["FakeBlueZ", "DBus", "Emulation", "Adapters", "BoardKit", "Chess", "TestSupport"]
        ),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT", "TestSupport"]),
        .testTarget(name: "ConfigTests", dependencies: ["Config", "BoardKit", "Kernel", "TestSupport"]),
        .testTarget(
            name: "BridgeTests",
            dependencies: ["Bridge", "Config", "Kernel", "Chess", "BoardKit", "Emulation", "TestSupport"]
        ),
        .testTarget(name: "CLITests", dependencies: ["BridgeCLI", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["Bridge", "MQTT", "Chess", "BoardKit", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
