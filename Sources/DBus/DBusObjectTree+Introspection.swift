/// `org.freedesktop.DBus.Introspectable` data of a ``DBusObjectTree``.
extension DBusObjectTree {
    /// The introspection XML of `path`: its interfaces (methods, signals, properties with the
    /// types of their current values) and its child nodes.
    func introspectionXML(for path: String) -> String {
        var xml = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
            "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>

            """
        if path == rootPath {
            xml += Self.introspectableXML
            xml += Self.objectManagerXML
        } else if let node = nodes[path] {
            for interface in node.interfaces {
                switch interface.name {
                case DBusStandard.introspectableInterface: xml += Self.introspectableXML
                case DBusStandard.propertiesInterface: xml += Self.propertiesXML
                default: xml += Self.xml(for: interface)
                }
            }
        }
        for child in childNames(of: path) {
            xml += "  <node name=\"\(child)\"/>\n"
        }
        xml += "</node>\n"
        return xml
    }

    private static func xml(for interface: DBusTreeInterface) -> String {
        var xml = "  <interface name=\"\(interface.name)\">\n"
        for method in interface.definition?.methods ?? [] {
            xml += "    <method name=\"\(method.name)\">\n"
            for argument in method.inArguments { xml += argumentXML(argument, direction: "in") }
            for argument in method.outArguments { xml += argumentXML(argument, direction: "out") }
            xml += "    </method>\n"
        }
        for signal in interface.definition?.signals ?? [] {
            xml += "    <signal name=\"\(signal.name)\">\n"
            for argument in signal.arguments { xml += argumentXML(argument, direction: nil) }
            xml += "    </signal>\n"
        }
        let writable = interface.definition?.writableProperties ?? []
        for (name, value) in interface.orderedProperties {
            let access = writable.contains(name) ? "readwrite" : "read"
            xml += "    <property name=\"\(name)\" type=\"\(value.typeSignature)\" access=\"\(access)\"/>\n"
        }
        xml += "  </interface>\n"
        return xml
    }

    private static func argumentXML(_ argument: DBusArgument, direction: String?) -> String {
        let name = escaped(argument.name)
        if let direction {
            return "      <arg name=\"\(name)\" type=\"\(argument.signature)\" direction=\"\(direction)\"/>\n"
        }
        return "      <arg name=\"\(name)\" type=\"\(argument.signature)\"/>\n"
    }

    /// Argument names are free text: escape what XML attributes cannot hold.
    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }

    private static let introspectableXML = """
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml" type="s" direction="out"/>
            </method>
          </interface>

        """

    private static let propertiesXML = """
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface" type="s" direction="in"/>
              <arg name="name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface" type="s" direction="in"/>
              <arg name="name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <method name="GetAll">
              <arg name="interface" type="s" direction="in"/>
              <arg name="properties" type="a{sv}" direction="out"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>

        """

    private static let objectManagerXML = """
          <interface name="org.freedesktop.DBus.ObjectManager">
            <method name="GetManagedObjects">
              <arg name="objects" type="a{oa{sa{sv}}}" direction="out"/>
            </method>
            <signal name="InterfacesAdded">
              <arg name="object" type="o"/>
              <arg name="interfaces" type="a{sa{sv}}"/>
            </signal>
            <signal name="InterfacesRemoved">
              <arg name="object" type="o"/>
              <arg name="interfaces" type="as"/>
            </signal>
          </interface>

        """
}
