/// Names of BlueZ's D-Bus API (reference/bluez-dbus.md §1–§4).
public enum BlueZNames {
    /// BlueZ's well-known bus name.
    public static let service = "org.bluez"
    /// The root of every BlueZ object.
    public static let root = "/org/bluez"
    /// `org.bluez.Adapter1`.
    public static let adapterInterface = "org.bluez.Adapter1"
    /// `org.bluez.Device1`.
    public static let deviceInterface = "org.bluez.Device1"
    /// `org.bluez.GattService1`.
    public static let serviceInterface = "org.bluez.GattService1"
    /// `org.bluez.GattCharacteristic1`.
    public static let characteristicInterface = "org.bluez.GattCharacteristic1"

    /// Error names BlueZ returns.
    public enum Error {
        /// `org.bluez.Error.InProgress`.
        public static let inProgress = "org.bluez.Error.InProgress"
        /// `org.bluez.Error.Failed` (the text says why).
        public static let failed = "org.bluez.Error.Failed"
        /// `org.bluez.Error.NotReady` (the adapter is off).
        public static let notReady = "org.bluez.Error.NotReady"
        /// `org.bluez.Error.NotConnected`.
        public static let notConnected = "org.bluez.Error.NotConnected"
        /// `org.bluez.Error.NotAuthorized`.
        public static let notAuthorized = "org.bluez.Error.NotAuthorized"
        /// `org.bluez.Error.NotPermitted`.
        public static let notPermitted = "org.bluez.Error.NotPermitted"
        /// `org.bluez.Error.NotSupported`.
        public static let notSupported = "org.bluez.Error.NotSupported"
        /// `org.bluez.Error.DoesNotExist`.
        public static let doesNotExist = "org.bluez.Error.DoesNotExist"
        /// `org.bluez.Error.InvalidArguments`.
        public static let invalidArguments = "org.bluez.Error.InvalidArguments"
        /// `org.bluez.Error.AlreadyConnected`.
        public static let alreadyConnected = "org.bluez.Error.AlreadyConnected"
    }
}

/// Helpers for BlueZ object paths (`/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF/service000c/char000d`).
public enum BlueZPath {
    /// The adapter's short name (`hci0`) of any path at or below an adapter, or `nil`.
    public static func adapterName(of path: String) -> String? {
        let parts = components(path)
        guard parts.count >= 3, parts[0] == "org", parts[1] == "bluez" else { return nil }
        return String(parts[2])
    }

    /// The adapter path (`/org/bluez/hci0`) of any path at or below an adapter, or `nil`.
    public static func adapterPath(of path: String) -> String? {
        adapterName(of: path).map { BlueZNames.root + "/" + $0 }
    }

    /// The device path of a device or GATT object path, or `nil` when `path` is not at or
    /// below a device.
    public static func devicePath(of path: String) -> String? {
        let parts = components(path)
        guard parts.count >= 4, parts[0] == "org", parts[1] == "bluez", parts[3].hasPrefix("dev_") else { return nil }
        return "/" + parts[0..<4].joined(separator: "/")
    }

    /// The device path BlueZ builds for `address` on `adapterPath` (upper case, `_` for `:`).
    public static func devicePath(adapterPath: String, address: String) -> String {
        adapterPath + "/dev_"
            + address.uppercased().split(separator: ":", omittingEmptySubsequences: false).joined(separator: "_")
    }

    /// The address encoded in a device path (`dev_AA_BB_…` → `AA:BB:…`), or `nil`.
    public static func address(fromDevicePath path: String) -> String? {
        guard let device = devicePath(of: path), let last = components(device).last else { return nil }
        let hex = last.dropFirst(4)
        let groups = hex.split(separator: "_", omittingEmptySubsequences: false)
        guard groups.count == 6, groups.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
            return nil
        }
        return groups.joined(separator: ":").uppercased()
    }

    /// The parent of `path` (`/a/b` → `/a`), or `nil` for `/`.
    public static func parent(of path: String) -> String? {
        guard path != "/", let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func components(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
