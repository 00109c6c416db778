public import BoardKit

/// One value for each side, indexed by ``PieceColor``.
public struct ColorPair<Value: Sendable>: Sendable {
    /// White's value.
    public var white: Value
    /// Black's value.
    public var black: Value

    /// Creates a pair.
    @inlinable
    public init(white: Value, black: Value) {
        self.white = white
        self.black = black
    }

    /// Creates a pair holding `value` for both sides.
    @inlinable
    public init(both value: Value) {
        self.init(white: value, black: value)
    }

    /// The value of `color`.
    @inlinable
    public subscript(color: PieceColor) -> Value {
        get { color == .white ? white : black }
        set {
            if color == .white { white = newValue } else { black = newValue }
        }
    }
}

extension ColorPair: Equatable where Value: Equatable {}
extension ColorPair: Hashable where Value: Hashable {}
extension ColorPair: Codable where Value: Codable {}
