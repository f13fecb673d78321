import DepotAPI

extension ReleaseJournal {
    /// Writes the journal as its JSON (the form `Decodable` reads), one move and one removal at a
    /// time.
    func encode(into stream: inout JSONStream) throws {
        stream.raw("{")
        if let folders { try stream.key("folders", folders) }
        if let format { try stream.key("format", format) }
        stream.raw("\"moves\":")
        try stream.array(moves)
        stream.raw(",\"removals\":")
        try stream.array(removals)
        stream.raw(",")
        if let removalsDone { try stream.key("removalsDone", removalsDone) }
        try stream.key("state", state, last: tree == nil)
        if let tree { try stream.key("tree", tree, last: true) }
        stream.raw("}")
    }
}
