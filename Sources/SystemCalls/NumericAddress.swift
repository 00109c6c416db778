#if canImport(Glibc)
    import Glibc
#endif

/// Numeric IP address text, judged by `inet_pton(3)`: the parser the sockets that bind to
/// the address use, so what it accepts is exactly what a listener can bind to.
public enum NumericAddress {
    /// The address families a numeric address can be written in.
    public enum Family: Sendable, Equatable {
        /// Dotted-quad IPv4 (`192.0.2.1`).
        case ipv4
        /// Colon-separated IPv6 (`::1`, `fe80::1`, `::ffff:192.0.2.1`).
        case ipv6
    }

    /// The family `text` is a valid numeric address of, or `nil` when it is neither (a host
    /// name, `1::2::3`, `12345::`, `1.2.3.400`, an empty string).
    public static func family(of text: String) -> Family? {
        var buffer = (UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &buffer) { bytes -> Family? in
            if inet_pton(AF_INET, text, bytes.baseAddress) == 1 { return .ipv4 }
            if inet_pton(AF_INET6, text, bytes.baseAddress) == 1 { return .ipv6 }
            return nil
        }
    }
}
