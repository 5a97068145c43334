import ChatDomain

/// Reads and writes `conversations/<id>/.caught-up`, this device's sync marker (docs/FORMAT.md):
/// one decimal sequence and a newline. Every sequence from the start of the stored history
/// through that number is stored. Hidden and per device: readers, `check` and the observer skip it.
enum CaughtUpFile {
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
        guard let bytes = (try? read(StoreLayout.caughtUp, limit: 4096)) ?? nil else { return nil }
        return CaughtUpFile.decode(bytes)
    }
}
