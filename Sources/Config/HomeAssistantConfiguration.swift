/// The `homeassistant` section: MQTT discovery for Home Assistant.
public struct HomeAssistantConfiguration: Sendable, Equatable, Hashable {
    /// Publish discovery messages (default false).
    public var enabled: Bool
    /// The discovery prefix (default `homeassistant`).
    public var discoveryPrefix: String
    /// Where Home Assistant announces `online` (default `homeassistant/status`); the
    /// bridge re-publishes discovery when it does.
    public var statusTopic: String
    /// Use single-message device discovery (Home Assistant 2024.11+) instead of one
    /// message per entity (default false).
    public var deviceDiscovery: Bool

    /// The defaults, or the given values.
    public init(
        enabled: Bool = false, discoveryPrefix: String = "homeassistant",
        statusTopic: String = "homeassistant/status", deviceDiscovery: Bool = false
    ) {
        self.enabled = enabled
        self.discoveryPrefix = discoveryPrefix
        self.statusTopic = statusTopic
        self.deviceDiscovery = deviceDiscovery
    }
}
