extension ConversationID {
    /// The letters and digits of the room ID's opaque part kept at most, so a person can tell
    /// folders apart at a glance while the hash still makes them unique.
    public static let matrixRoomReadableLength = 24
    /// Hexadecimal digits of the SHA-256 of the room ID kept: 80 bits, beyond what a server
    /// choosing room IDs can collide by brute force.
    public static let matrixRoomHashLength = 20

    /// The folder of the Matrix room `roomID` (its text, `!opaque:server` or `!opaque`): the
    /// opaque part's letters and digits (the first ``matrixRoomReadableLength``), `-`, and the
    /// first ``matrixRoomHashLength`` lower-case hex digits of SHA-256 of the room ID's UTF-8;
    /// just the hex digits when no letter or digit is left. A function of the room ID alone, so
    /// every device names a room alike, and always a valid ``Name`` whatever a server sends
    /// (`..`, `/`, non-ASCII, any length).
    public static func matrixRoom(_ roomID: String) -> ConversationID {
        var opaque = Substring(roomID)
        if opaque.hasPrefix("!") { opaque = opaque.dropFirst() }
        if let colon = opaque.firstIndex(of: ":") { opaque = opaque[..<colon] }
        let readable = opaque.utf8.lazy.filter { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }.prefix(Self.matrixRoomReadableLength)
        let hash = String(SHA256.hex(roomID.utf8).prefix(Self.matrixRoomHashLength))
        let name = readable.isEmpty ? hash : String(decoding: readable, as: UTF8.self) + "-" + hash
        do { return try ConversationID(name) } catch {
            preconditionFailure("letters, digits, \"-\" and 45 bytes at most always make a name: \(error)")
        }
    }
}
