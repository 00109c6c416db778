/// The one place the BoardBridge version is written.
public enum BoardBridgeVersion {
    /// The version of this build (semantic versioning).
    public static let current = "0.1.0"
}
