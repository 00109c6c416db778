import Config

extension ConfiguredBoard {
    /// The configured address, when the board is matched by address.
    var address: String? {
        if case .address(let address) = match { return address }
        return nil
    }
}
