internal import CDBus

/// Conversion between ``DBusValue`` and libdbus message iterators.
///
/// Values are validated (``DBusValue/validate()``) before `append` is called, because libdbus
/// aborts on a type mismatch. Reading copies every string and array out of the message at
/// once: libdbus only lends them until the message is released.
enum DBusMessageCodec {
    // MARK: Reading

    /// Reads the value at `iterator` (does not advance it); `nil` when there is none.
    static func read(_ iterator: inout DBusMessageIter) -> DBusValue? {
        let type = dbus_message_iter_get_arg_type(&iterator)
        switch type {
        case DBusTypeCode.byte:
            var value: UInt8 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .byte(value)
        case DBusTypeCode.boolean:
            // dbus_bool_t is 32 bits wide.
            var value: dbus_bool_t = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .bool(value != 0)
        case DBusTypeCode.int16:
            var value: Int16 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .int16(value)
        case DBusTypeCode.uint16:
            var value: UInt16 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .uint16(value)
        case DBusTypeCode.int32:
            var value: Int32 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .int32(value)
        case DBusTypeCode.uint32:
            var value: UInt32 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .uint32(value)
        case DBusTypeCode.int64:
            var value: Int64 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .int64(value)
        case DBusTypeCode.uint64:
            var value: UInt64 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .uint64(value)
        case DBusTypeCode.double:
            var value: Double = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .double(value)
        case DBusTypeCode.string:
            return .string(readString(&iterator))
        case DBusTypeCode.objectPath:
            return .objectPath(readString(&iterator))
        case DBusTypeCode.signature:
            return .signature(readString(&iterator))
        case DBusTypeCode.unixFD:
            // libdbus hands out a duplicate (close-on-exec) that the receiver owns.
            var value: Int32 = -1
            dbus_message_iter_get_basic(&iterator, &value)
            return .unixFD(value)
        case DBusTypeCode.array:
            return readArray(&iterator)
        case DBusTypeCode.struct:
            var members = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &members)
            return .struct(readAll(&members))
        case DBusTypeCode.variant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            guard let value = read(&inner) else { return nil }
            return .variant(value)
        default:
            return nil
        }
    }

    private static func readString(_ iterator: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iterator, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func readAll(_ iterator: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != DBusTypeCode.invalid {
            guard let value = read(&iterator) else { break }
            values.append(value)
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    private static func readArray(_ iterator: inout DBusMessageIter) -> DBusValue? {
        // The array's own signature ("a{sv}") also names the element type of an empty array.
        guard let cSignature = dbus_message_iter_get_signature(&iterator) else { return nil }
        let signature = String(cString: cSignature)
        dbus_free(cSignature)
        let element = String(signature.dropFirst())
        var elements = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &elements)
        if dbus_message_iter_get_element_type(&iterator) == DBusTypeCode.dictEntry {
            guard let parts = DBusSignature.dictionaryParts(of: signature) else { return nil }
            var entries: [DBusDictEntry] = []
            while dbus_message_iter_get_arg_type(&elements) == DBusTypeCode.dictEntry {
                var entry = DBusMessageIter()
                dbus_message_iter_recurse(&elements, &entry)
                guard let key = read(&entry) else { return nil }
                dbus_message_iter_next(&entry)
                guard let value = read(&entry) else { return nil }
                entries.append(DBusDictEntry(key: key, value: value))
                dbus_message_iter_next(&elements)
            }
            return .dictionary(parts.key, parts.value, entries)
        }
        if element == "y" {
            var pointer: UnsafeRawPointer? = nil
            var count: Int32 = 0
            dbus_message_iter_get_fixed_array(&elements, &pointer, &count)
            guard let pointer, count > 0 else { return .array("y", []) }
            let bytes = UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: UInt8.self), count: Int(count))
            return .array("y", bytes.map { .byte($0) })
        }
        return .array(element, readAll(&elements))
    }

    // MARK: Writing

    /// Appends `value` at `iterator`; `false` when libdbus runs out of memory.
    static func append(_ value: DBusValue, to iterator: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(var byte):
            return dbus_message_iter_append_basic(&iterator, DBusTypeCode.byte, &byte) != 0
        case .bool(let bool):
            var wide: dbus_bool_t = bool ? 1 : 0
            return dbus_message_iter_append_basic(&iterator, DBusTypeCode.boolean, &wide) != 0
        case .int16(var number):
            return dbus_message_iter_append_basic(&iterator, DBusTypeCode.int16, &number) != 0
        case .uint16(var number):
            return dbus_message_iter_append_basic(&iterator, DBusTypeCode.uint16, &number) != 0
        case .int32(var number):
            return dbus_message_iter_append_basic(&iterator, DBusTypeCode.int32, &number) != 0
        case .uint32(var number):
            return dbus_message_iter_append_basic(&iterator, DBusTypeCode.uint32, &number) != 0
        case .int64(var number):
            return dbus_message_iter_append_basic(&iterator, DBusTypeCode.int64, &number) != 0
        case .uint64(var number):
            return dbus_message_iter_append_basic(&iterator, DBusTypeCode.uint64, &number) != 0
        case .double(var number):
            return dbus_message_iter_append_basic(&iterator, DBusTypeCode.double, &number) != 0
        case .string(let string):
            return appendString(string, type: DBusTypeCode.string, to: &iterator)
        case .objectPath(let path):
            return appendString(path, type: DBusTypeCode.objectPath, to: &iterator)
        case .signature(let signature):
            return appendString(signature, type: DBusTypeCode.signature, to: &iterator)
        case .unixFD(var descriptor):
            return dbus_message_iter_append_basic(&iterator, DBusTypeCode.unixFD, &descriptor) != 0
        case .array(let element, let elements):
            return appendContainer(DBusTypeCode.array, signature: element, to: &iterator) { sub in
                if element == "y" {
                    let bytes = elements.compactMap(\.byteValue)
                    guard !bytes.isEmpty else { return true }
                    return bytes.withUnsafeBufferPointer { buffer in
                        var base = buffer.baseAddress
                        return dbus_message_iter_append_fixed_array(
                            &sub, DBusTypeCode.byte, &base, Int32(buffer.count)) != 0
                    }
                }
                return elements.allSatisfy { append($0, to: &sub) }
            }
        case .dictionary(let key, let valueType, let entries):
            return appendContainer(DBusTypeCode.array, signature: "{" + key + valueType + "}", to: &iterator) {
                sub in
                entries.allSatisfy { entry in
                    appendContainer(DBusTypeCode.dictEntry, signature: nil, to: &sub) { pair in
                        append(entry.key, to: &pair) && append(entry.value, to: &pair)
                    }
                }
            }
        case .struct(let members):
            return appendContainer(DBusTypeCode.struct, signature: nil, to: &iterator) { sub in
                members.allSatisfy { append($0, to: &sub) }
            }
        case .variant(let inner):
            return appendContainer(DBusTypeCode.variant, signature: inner.typeSignature, to: &iterator) { sub in
                append(inner, to: &sub)
            }
        }
    }

    private static func appendString(_ string: String, type: Int32, to iterator: inout DBusMessageIter) -> Bool {
        string.withCString { cString in
            var pointer: UnsafePointer<CChar>? = cString
            return dbus_message_iter_append_basic(&iterator, type, &pointer) != 0
        }
    }

    /// Opens a container, fills it with `fill`, and closes it (or abandons it on failure).
    private static func appendContainer(
        _ type: Int32, signature: String?, to iterator: inout DBusMessageIter,
        fill: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened = withOptionalCString(signature) { dbus_message_iter_open_container(&iterator, type, $0, &sub) }
        guard opened != 0 else { return false }
        guard fill(&sub) else {
            dbus_message_iter_abandon_container(&iterator, &sub)
            return false
        }
        return dbus_message_iter_close_container(&iterator, &sub) != 0
    }
}
