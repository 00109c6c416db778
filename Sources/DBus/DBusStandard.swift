/// Names defined by the D-Bus specification.
public enum DBusStandard {
    /// The bus daemon's own bus name (also the `sender` of its signals).
    public static let busName = "org.freedesktop.DBus"
    /// The bus daemon's object path.
    public static let busPath = "/org/freedesktop/DBus"
    /// The bus daemon's interface (`Hello`, `RequestName`, `AddMatch`, `NameOwnerChanged`…).
    public static let busInterface = "org.freedesktop.DBus"
    /// `org.freedesktop.DBus.Properties` (`Get`, `GetAll`, `Set`, `PropertiesChanged`).
    public static let propertiesInterface = "org.freedesktop.DBus.Properties"
    /// `org.freedesktop.DBus.ObjectManager` (`GetManagedObjects`, `InterfacesAdded`,
    /// `InterfacesRemoved`).
    public static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"
    /// `org.freedesktop.DBus.Introspectable` (`Introspect`).
    public static let introspectableInterface = "org.freedesktop.DBus.Introspectable"
    /// `org.freedesktop.DBus.Peer` (`Ping`, `GetMachineId`; answered by libdbus itself).
    public static let peerInterface = "org.freedesktop.DBus.Peer"
}
