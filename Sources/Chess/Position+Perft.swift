extension Position {
    /// The number of leaf nodes of the legal move tree `depth` plies deep (1 for depth 0):
    /// the standard acceptance test of move generation.
    ///
    /// Makes moves on copies (no undo needed), lists moves in one stack buffer shared by
    /// all plies, and counts the last ply in bulk without making its moves: no allocation
    /// per node.
    public func perft(depth: Int) -> Int {
        guard depth > 0 else { return 1 }
        return withUnsafeTemporaryAllocation(of: PackedMove.self, capacity: depth * MoveWriter.capacity) { buffer in
            // A temporary allocation of non-zero capacity always has a base address.
            perft(depth: depth, buffer: buffer.baseAddress!)
        }
    }

    private func perft(depth: Int, buffer: UnsafeMutablePointer<PackedMove>) -> Int {
        if depth == 1 { return legalMoveCount }
        var writer = MoveWriter(base: buffer)
        generateLegalMoves(into: &writer)
        let children = buffer + MoveWriter.capacity
        var nodes = 0
        for index in 0..<writer.count {
            var child = self
            child.make(buffer[index])
            nodes &+= child.perft(depth: depth &- 1, buffer: children)
        }
        return nodes
    }

    /// Perft split by root move (`e2e4: 20`-style, sorted by UCI), for finding where
    /// a generator goes wrong.
    public func perftDivide(depth: Int) -> [(move: Move, nodes: Int)] {
        legalMoves().map { ($0, applying($0).perft(depth: depth - 1)) }.sorted { $0.move.uci < $1.move.uci }
    }
}
