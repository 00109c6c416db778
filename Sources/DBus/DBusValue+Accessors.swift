/// Typed accessors. Scalar and array accessors look through any number of variant layers
/// (`DBusValue.variant(.string("x")).stringValue == "x"`); they return `nil` for any other
/// type, so data from the bus is read without traps.
extension DBusValue {
    /// The value with every enclosing variant layer removed.
    public var unwrapped: DBusValue {
        var value = self
        while case .variant(let inner) = value { value = inner }
        return value
    }

    /// The contents of a variant (one layer), or `nil` when this is not a variant.
    public var variantValue: DBusValue? {
        if case .variant(let inner) = self { return inner }
        return nil
    }

    /// The byte of a `y` value.
    public var byteValue: UInt8? {
        if case .byte(let value) = unwrapped { return value }
        return nil
    }

    /// The boolean of a `b` value.
    public var boolValue: Bool? {
        if case .bool(let value) = unwrapped { return value }
        return nil
    }

    /// The integer of an `n` value.
    public var int16Value: Int16? {
        if case .int16(let value) = unwrapped { return value }
        return nil
    }

    /// The integer of a `q` value.
    public var uint16Value: UInt16? {
        if case .uint16(let value) = unwrapped { return value }
        return nil
    }

    /// The integer of an `i` value.
    public var int32Value: Int32? {
        if case .int32(let value) = unwrapped { return value }
        return nil
    }

    /// The integer of a `u` value.
    public var uint32Value: UInt32? {
        if case .uint32(let value) = unwrapped { return value }
        return nil
    }

    /// The integer of an `x` value.
    public var int64Value: Int64? {
        if case .int64(let value) = unwrapped { return value }
        return nil
    }

    /// The integer of a `t` value.
    public var uint64Value: UInt64? {
        if case .uint64(let value) = unwrapped { return value }
        return nil
    }

    /// The number of a `d` value.
    public var doubleValue: Double? {
        if case .double(let value) = unwrapped { return value }
        return nil
    }

    /// The string of an `s` value (not of object paths or signatures).
    public var stringValue: String? {
        if case .string(let value) = unwrapped { return value }
        return nil
    }

    /// The path of an `o` value.
    public var objectPathValue: String? {
        if case .objectPath(let value) = unwrapped { return value }
        return nil
    }

    /// The signature of a `g` value.
    public var signatureValue: String? {
        if case .signature(let value) = unwrapped { return value }
        return nil
    }

    /// The descriptor of an `h` value (owned by whoever received it; see ``unixFD(_:)``).
    public var unixFDValue: Int32? {
        if case .unixFD(let value) = unwrapped { return value }
        return nil
    }

    /// The elements of an array (not of a dictionary).
    public var arrayValue: [DBusValue]? {
        if case .array(_, let elements) = unwrapped { return elements }
        return nil
    }

    /// The members of a struct.
    public var structValue: [DBusValue]? {
        if case .struct(let members) = unwrapped { return members }
        return nil
    }

    /// The entries of a dictionary, in wire order.
    public var dictionaryEntries: [DBusDictEntry]? {
        if case .dictionary(_, _, let entries) = unwrapped { return entries }
        return nil
    }

    /// The bytes of an `ay` value (BlueZ's `Value`, advertising data).
    public var bytesValue: [UInt8]? {
        guard case .array("y", let elements) = unwrapped else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.count)
        for element in elements {
            guard case .byte(let byte) = element else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// The strings of an `as` value (BlueZ's `UUIDs`).
    public var stringArrayValue: [String]? {
        guard case .array("s", let elements) = unwrapped else { return nil }
        return Self.collect(elements) { $0.stringValue }
    }

    /// The paths of an `ao` value.
    public var objectPathArrayValue: [String]? {
        guard case .array("o", let elements) = unwrapped else { return nil }
        return Self.collect(elements) { $0.objectPathValue }
    }

    /// A dictionary as a Swift dictionary, keys and values as they are (a later duplicate key
    /// wins).
    public var dictionaryValue: [DBusValue: DBusValue]? {
        guard let entries = dictionaryEntries else { return nil }
        var result: [DBusValue: DBusValue] = [:]
        for entry in entries { result[entry.key] = entry.value }
        return result
    }

    /// An `a{s…}` dictionary keyed by string, each value with one variant layer removed: the
    /// natural reading of `a{sv}` property maps and BlueZ's `ServiceData`.
    public var stringDictionaryValue: [String: DBusValue]? {
        keyedDictionary { $0.stringValue }
    }

    /// An `a{o…}` dictionary keyed by object path, each value with one variant layer removed.
    public var objectPathDictionaryValue: [String: DBusValue]? {
        keyedDictionary { $0.objectPathValue }
    }

    /// An `a{q…}` dictionary (BlueZ's `ManufacturerData`, `a{qv}`), each value with one variant
    /// layer removed.
    public var uint16DictionaryValue: [UInt16: DBusValue]? {
        keyedDictionary { $0.uint16Value }
    }

    /// An `a{y…}` dictionary (BlueZ's `AdvertisingData`, `a{yv}`), each value with one variant
    /// layer removed.
    public var byteDictionaryValue: [UInt8: DBusValue]? {
        keyedDictionary { $0.byteValue }
    }

    /// An `a{sa{sv}}` value (the interfaces of `InterfacesAdded`): interface name → property
    /// name → property value (variant removed).
    public var interfacesAndPropertiesValue: [String: [String: DBusValue]]? {
        guard let interfaces = stringDictionaryValue else { return nil }
        var result: [String: [String: DBusValue]] = [:]
        for (name, properties) in interfaces {
            guard let map = properties.stringDictionaryValue else { return nil }
            result[name] = map
        }
        return result
    }

    /// An `a{oa{sa{sv}}}` value (the reply of `GetManagedObjects`): object path → interface
    /// name → property name → property value (variant removed).
    public var managedObjectsValue: [String: [String: [String: DBusValue]]]? {
        guard let objects = objectPathDictionaryValue else { return nil }
        var result: [String: [String: [String: DBusValue]]] = [:]
        for (path, interfaces) in objects {
            guard let map = interfaces.interfacesAndPropertiesValue else { return nil }
            result[path] = map
        }
        return result
    }

    private func keyedDictionary<Key: Hashable>(_ key: (DBusValue) -> Key?) -> [Key: DBusValue]? {
        guard let entries = dictionaryEntries else { return nil }
        var result: [Key: DBusValue] = [:]
        result.reserveCapacity(entries.count)
        for entry in entries {
            guard let typedKey = key(entry.key) else { return nil }
            result[typedKey] = entry.value.variantValue ?? entry.value
        }
        return result
    }

    private static func collect<T>(_ elements: [DBusValue], _ transform: (DBusValue) -> T?) -> [T]? {
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let value = transform(element) else { return nil }
            result.append(value)
        }
        return result
    }
}
