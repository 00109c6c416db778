/// Checking a value before it is written to a message.
extension DBusValue {
    /// Checks that the value can be sent: containers hold elements of their declared
    /// signatures, dictionary keys are basic types, strings contain no NUL, object paths and
    /// signatures are valid, structs are not empty and the nesting limits hold.
    ///
    /// - Throws: `DBusError` named ``DBusError/Name/invalidArgs`` describing the first problem.
    public func validate() throws(DBusError) {
        try validate(depth: 0)
        let signature = typeSignature
        guard DBusNames.isSingleCompleteType(signature) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid type signature '\(signature)'")
        }
    }

    /// Checks every value of a message body and the length of its signature.
    static func validate(body: [DBusValue]) throws(DBusError) {
        for value in body { try value.validate() }
        let signature = DBusValue.signature(of: body)
        guard signature.utf8.count <= DBusNames.maximumLength else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "Body signature longer than 255 bytes")
        }
    }

    private func validate(depth: Int) throws(DBusError) {
        // Arrays, structs and variants together may not nest deeper than 64 levels.
        guard depth <= 64 else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "Value nested too deeply")
        }
        switch self {
        case .string(let string):
            guard !string.utf8.contains(0) else {
                throw DBusError(name: DBusError.Name.invalidArgs, message: "String contains a NUL character")
            }
        case .objectPath(let path):
            guard DBusNames.isValidObjectPath(path) else {
                throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid object path '\(path)'")
            }
        case .signature(let signature):
            guard DBusNames.isValidSignature(signature) else {
                throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid signature value '\(signature)'")
            }
        case .unixFD(let descriptor):
            guard descriptor >= 0 else {
                throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid file descriptor \(descriptor)")
            }
        case .array(let element, let elements):
            guard DBusNames.isSingleCompleteType(element), !element.hasPrefix("{") else {
                throw DBusError(name: DBusError.Name.invalidArgs, message: "Invalid array element type '\(element)'")
            }
            for item in elements {
                guard item.typeSignature == element else {
                    throw DBusError(
                        name: DBusError.Name.invalidArgs,
                        message: "Array of '\(element)' holds a '\(item.typeSignature)'")
                }
                try item.validate(depth: depth + 1)
            }
        case .dictionary(let key, let value, let entries):
            guard key.utf8.count == 1, let code = key.utf8.first, DBusTypeCode.isBasic(code),
                DBusNames.isSingleCompleteType(value)
            else {
                throw DBusError(
                    name: DBusError.Name.invalidArgs, message: "Invalid dictionary type 'a{\(key)\(value)}'")
            }
            for entry in entries {
                guard entry.key.typeSignature == key, entry.value.typeSignature == value else {
                    throw DBusError(
                        name: DBusError.Name.invalidArgs,
                        message:
                            "Dictionary 'a{\(key)\(value)}' holds a '\(entry.key.typeSignature)' → '\(entry.value.typeSignature)' entry"
                    )
                }
                try entry.key.validate(depth: depth + 1)
                try entry.value.validate(depth: depth + 1)
            }
        case .struct(let members):
            guard !members.isEmpty else {
                throw DBusError(name: DBusError.Name.invalidArgs, message: "Empty struct")
            }
            for member in members { try member.validate(depth: depth + 1) }
        case .variant(let inner):
            try inner.validate(depth: depth + 1)
        case .byte, .bool, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double:
            break
        }
    }
}
