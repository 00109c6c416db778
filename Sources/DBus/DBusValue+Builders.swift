/// Builders for the containers BlueZ uses, so call sites need not spell signatures.
extension DBusValue {
    /// An `ay` array.
    public static func bytes(_ bytes: some Sequence<UInt8>) -> DBusValue {
        .array("y", bytes.map { .byte($0) })
    }

    /// An `as` array.
    public static func strings(_ strings: some Sequence<String>) -> DBusValue {
        .array("s", strings.map { .string($0) })
    }

    /// An `ao` array.
    public static func objectPaths(_ paths: some Sequence<String>) -> DBusValue {
        .array("o", paths.map { .objectPath($0) })
    }

    /// An `a{sv}` dictionary in the given order; each value is wrapped in a variant (pass
    /// plain values: `["Connected": .bool(true)]`).
    public static func propertyDictionary(_ entries: KeyValuePairs<String, DBusValue>) -> DBusValue {
        propertyDictionary(entries.map { ($0.key, $0.value) })
    }

    /// An `a{sv}` dictionary in the given order; each value is wrapped in a variant.
    public static func propertyDictionary(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary("s", "v", entries.map { DBusDictEntry(key: .string($0.0), value: .variant($0.1)) })
    }

    /// An `a{qv}` dictionary (BlueZ's `ManufacturerData`: company id → variant holding `ay`);
    /// each value is wrapped in a variant.
    public static func uint16Dictionary(_ entries: [(UInt16, DBusValue)]) -> DBusValue {
        .dictionary("q", "v", entries.map { DBusDictEntry(key: .uint16($0.0), value: .variant($0.1)) })
    }

    /// An `a{sa{sv}}` value (the second argument of `InterfacesAdded`): interface name →
    /// properties (plain values; each is wrapped in a variant).
    public static func interfacesAndProperties(_ interfaces: [(String, [(String, DBusValue)])]) -> DBusValue {
        .dictionary(
            "s", "a{sv}",
            interfaces.map { DBusDictEntry(key: .string($0.0), value: propertyDictionary($0.1)) })
    }

    /// An `a{oa{sa{sv}}}` value (the reply of `GetManagedObjects`): object path → interface
    /// name → properties (plain values; each is wrapped in a variant).
    public static func managedObjects(_ objects: [(String, [(String, [(String, DBusValue)])])]) -> DBusValue {
        .dictionary(
            "o", "a{sa{sv}}",
            objects.map { DBusDictEntry(key: .objectPath($0.0), value: interfacesAndProperties($0.1)) })
    }
}
