import ChatDomain

/// The bytes of this device's two markers in a conversation's directory (docs/FORMAT.md): one
/// decimal sequence and a newline. `.caught-up`: every sequence from the start of the stored
/// history through that number is stored. `.history-complete`: the history a first sync brings
/// is stored from that number up. Hidden and per device: readers, `check` and the observer
/// skip them.
enum SequenceMarkerFile {
    static func encode(_ sequence: Int) -> [UInt8] {
        Array("\(sequence)\n".utf8)
    }

    /// The number before the first newline; nil when it is not one.
    static func decode(_ bytes: [UInt8]) -> Int? {
        Int(String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self))
    }
}

extension Conversation {
    /// The sync marker, or nil when there is none or it cannot be read (catching up then starts
    /// from the run of stored sequences at the head, which is never wrong, only slower).
    public func caughtUpMarker() -> Int? {
        marker(StoreLayout.caughtUp)
    }

    /// Where the first sync's history was found complete (reached its goal or the room's first
    /// message), or nil when it is not yet, or the marker cannot be read (the next pass then
    /// looks again: a few requests, never a wrong answer).
    public func historyCompleteMarker() -> Int? {
        marker(StoreLayout.historyComplete)
    }

    private func marker(_ name: String) -> Int? {
        guard let bytes = (try? read(name, limit: 4096)) ?? nil else { return nil }
        return SequenceMarkerFile.decode(bytes)
    }
}
