extension Duration {
    /// The duration in seconds, as a `Double` (the unit of ``LoopTimer/after(_:_:)-(Double,_)``
    /// and of the wall-clock times the bridge hands its kernel).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
