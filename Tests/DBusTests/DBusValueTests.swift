import DBus
import Testing

/// Values, signatures, names and match rules, without a bus.
@Suite struct DBusValueTests {
    @Test(arguments: [
        (DBusValue.byte(1), "y"), (.bool(true), "b"), (.int16(1), "n"), (.uint16(1), "q"), (.int32(1), "i"),
        (.uint32(1), "u"), (.int64(1), "x"), (.uint64(1), "t"), (.double(1), "d"), (.string(""), "s"),
        (.objectPath("/"), "o"), (.signature(""), "g"), (.unixFD(0), "h"), (.bytes([]), "ay"),
        (.propertyDictionary([:]), "a{sv}"), (.uint16Dictionary([]), "a{qv}"),
        (.managedObjects([]), "a{oa{sa{sv}}}"), (.interfacesAndProperties([]), "a{sa{sv}}"),
        (.struct([.objectPath("/"), .strings([])]), "(oas)"), (.variant(.bytes([1])), "v"),
        (.array("a{sv}", []), "aa{sv}"),
    ])
    func signatureOfValue(_ value: DBusValue, _ signature: String) {
        #expect(value.typeSignature == signature)
        #expect(DBusNames.isSingleCompleteType(signature))
    }

    @Test func bodySignatureConcatenates() {
        #expect(DBusValue.signature(of: [.string("x"), .propertyDictionary([:]), .strings([])]) == "sa{sv}as")
    }

    @Test(arguments: [
        ("", true), ("a{sv}", true), ("a{oa{sa{sv}}}", true), ("(i(ss))", true), ("aay", true), ("sa{sv}as", true),
        ("a", false), ("a{vs}", false), ("{sv}", false), ("()", false), ("(s", false), ("a{s}", false),
        ("a{svv}", false), ("z", false), ("a{(s)v}", false),
        (String(repeating: "a", count: 33) + "y", false), (String(repeating: "a", count: 32) + "y", true),
        (String(repeating: "y", count: 256), false),
    ])
    func signatureValidity(_ signature: String, _ valid: Bool) {
        #expect(DBusNames.isValidSignature(signature) == valid)
    }

    @Test func objectPathRules() {
        for valid in ["/", "/org/bluez", "/org/bluez/hci0/dev_AA_BB", "/a1/_b"] {
            #expect(DBusNames.isValidObjectPath(valid), "\(valid)")
        }
        for invalid in ["", "org", "/org/", "//", "/org//bluez", "/org/blu-ez", "/ä"] {
            #expect(!DBusNames.isValidObjectPath(invalid), "\(invalid)")
        }
    }

    @Test func busInterfaceAndMemberNameRules() {
        #expect(DBusNames.isValidBusName("org.bluez"))
        #expect(DBusNames.isValidBusName(":1.42"))
        #expect(DBusNames.isValidBusName("org.my-app.x"))
        #expect(!DBusNames.isValidBusName("org"))
        #expect(!DBusNames.isValidBusName("org.1bluez"))
        #expect(!DBusNames.isValidBusName("org..bluez"))
        #expect(DBusNames.isValidInterfaceName("org.bluez.Device1"))
        #expect(!DBusNames.isValidInterfaceName("org.blu-ez.Device1"))
        #expect(!DBusNames.isValidInterfaceName("Device1"))
        #expect(DBusNames.isValidErrorName("org.bluez.Error.InProgress"))
        #expect(DBusNames.isValidMemberName("GetManagedObjects"))
        #expect(!DBusNames.isValidMemberName("1Get"))
        #expect(!DBusNames.isValidMemberName("Get.All"))
        #expect(!DBusNames.isValidMemberName(""))
    }

    @Test func validationFindsMismatchedContainers() {
        let invalid: [DBusValue] = [
            .array("s", [.uint32(1)]), .array("{sv}", []), .array("", []),
            .dictionary("v", "s", []), .dictionary("s", "v", [DBusDictEntry(key: .string("k"), value: .string("v"))]),
            .struct([]), .objectPath("bad"), .signature("a{"), .string("nul\u{0}"), .unixFD(-1),
            .variant(.array("y", [.string("x")])),
        ]
        for value in invalid {
            #expect(throws: DBusError.self, "\(value)") { try value.validate() }
        }
        let valid: [DBusValue] = [
            .managedObjects([("/a", [("i.f", [("p", .bytes([1]))])])]), .struct([.variant(.struct([.byte(0)]))]),
        ]
        for value in valid {
            #expect(throws: Never.self) { try value.validate() }
        }
    }

    @Test func accessorsLookThroughVariants() {
        let value = DBusValue.variant(.variant(.string("x")))
        #expect(value.stringValue == "x")
        #expect(value.variantValue == .variant(.string("x")))
        #expect(value.unwrapped == .string("x"))
        #expect(value.uint32Value == nil)
        #expect(DBusValue.variant(.bytes([1, 2])).bytesValue == [1, 2])
        #expect(DBusValue.objectPaths(["/a"]).objectPathArrayValue == ["/a"])
        #expect(DBusValue.strings(["a"]).stringArrayValue == ["a"])
        #expect(DBusValue.strings(["a"]).bytesValue == nil)
        #expect(DBusValue.int16(-5).int16Value == -5)
        #expect(DBusValue.bool(true).boolValue == true)
        #expect(DBusValue.struct([.byte(1)]).structValue == [.byte(1)])
    }

    @Test func dictionaryAccessorsForBlueZShapes() {
        let manufacturer = DBusValue.uint16Dictionary([(0x004C, .bytes([2, 0x15]))])
        #expect(manufacturer.uint16DictionaryValue == [0x004C: .bytes([2, 0x15])])
        let properties = DBusValue.propertyDictionary(["Name": .string("Chessnut"), "RSSI": .int16(-70)])
        #expect(properties.stringDictionaryValue == ["Name": .string("Chessnut"), "RSSI": .int16(-70)])
        #expect(properties.dictionaryEntries?.map(\.key) == [.string("Name"), .string("RSSI")])
        #expect(properties.dictionaryValue?[.string("Name")] == .variant(.string("Chessnut")))
        let objects = DBusValue.managedObjects([
            ("/org/bluez/hci0", [("org.bluez.Adapter1", [("Powered", .bool(true))])])
        ])
        #expect(objects.managedObjectsValue == ["/org/bluez/hci0": ["org.bluez.Adapter1": ["Powered": .bool(true)]]])
        #expect(DBusValue.string("x").managedObjectsValue == nil)
        #expect(DBusValue.propertyDictionary(["a": .byte(1)]).uint16DictionaryValue == nil)
        let advertising = DBusValue.dictionary(
            "y", "v", [DBusDictEntry(key: .byte(0x09), value: .variant(.bytes([65])))])
        #expect(advertising.byteDictionaryValue == [0x09: .bytes([65])])
    }

    @Test func matchRuleStrings() {
        let rule = DBusMatchRule.propertiesChanged(sender: "org.bluez", pathNamespace: "/org/bluez")
        #expect(
            rule.ruleString
                == "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
                + "member='PropertiesChanged',path_namespace='/org/bluez'")
        #expect(
            DBusMatchRule.nameOwnerChanged("org.bluez").ruleString
                == "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                + "member='NameOwnerChanged',path='/org/freedesktop/DBus',arg0='org.bluez'")
        #expect(DBusMatchRule(arg0: "it's").ruleString == "type='signal',arg0='it'\\''s'")
        #expect(DBusMatchRule(kind: nil).ruleString == "")
        #expect(
            DBusMatchRule.interfacesAdded(sender: "org.bluez").ruleString.contains("member='InterfacesAdded',path='/'"))
    }

    @Test func errorDescriptionAndLibdbusText() {
        let error = DBusError(name: "org.bluez.Error.Failed", message: "abort")
        #expect(error.description == "org.bluez.Error.Failed: abort")
        #expect(DBusError(name: "a.B", message: "").description == "a.B")
        let call = DBusMessage(
            kind: .methodCall, path: "/x", interface: "org.bluez.Device1", member: "Pair", body: [.string("a")])
        #expect(
            DBusError.noSuchMethod(call).message
                == "Method \"Pair\" with signature \"s\" on interface \"org.bluez.Device1\" doesn't exist\n")
        #expect(DBusError.noSuchMethod(call, name: DBusError.Name.unknownObject).name == DBusError.Name.unknownObject)
        #expect(
            DBusMessage(kind: .error, errorName: "a.B", body: [.string("m")]).error
                == DBusError(name: "a.B", message: "m"))
    }
}
