/// The ID a sending device gives a message, reused on every retry: a UUID in canonical text form
/// (8-4-4-4-12 hexadecimal digits). The text is kept exactly as given, so upper- and lower-case
/// forms from other clients survive a round trip; new IDs are upper-case.
public struct ClientMessageID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `rawValue`; throws ``DomainError/invalidClientMessageID(_:)``.
    public init(_ rawValue: String) throws(DomainError) {
        guard Self.isCanonicalUUID(rawValue) else { throw .invalidClientMessageID(rawValue) }
        self.rawValue = rawValue
    }

    private init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// An ID from UTF-8 bytes, checked on the bytes (no intermediate copies); nil when invalid.
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard Self.isCanonicalUUID(utf8: bytes) else { return nil }
        rawValue = String(decoding: bytes, as: UTF8.self)
    }

    /// A fresh random ID (version 4 UUID, upper-case).
    public static func random() -> ClientMessageID {
        // Two draws of 8 bytes: the system generator makes one getrandom(2) per draw, and a
        // byte at a time was 16 system calls per `send`.
        let (high, low) = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
        return uuid((0..<16).map { UInt8(truncatingIfNeeded: ($0 < 8 ? high : low) >> (UInt64($0 % 8) * 8)) })
    }

    /// A version 4 UUID drawn from `generator`; seeded generators make fixtures reproducible.
    public static func random(using generator: inout some RandomNumberGenerator) -> ClientMessageID {
        uuid((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The ID of a Matrix event no outbox of this account named: another member's message, or
    /// any redacted one. Every device derives the same ID from the event ID alone, so every
    /// device writes the same record: the first 16 bytes of SHA-256 of the event ID's UTF-8, as
    /// a version 8 UUID (RFC 9562's custom-made UUIDs), upper-case.
    public static func derived(fromEventID eventID: EventID) -> ClientMessageID {
        uuid(Array(SHA256.hash(eventID.rawValue.utf8).prefix(16)), version: 8)
    }

    /// The UUID of `version` made of 16 bytes (random or hashed), upper-case: the version in the
    /// high nibble of byte 6, the variant bits 10 at the top of byte 8.
    private static func uuid(_ random: [UInt8], version: UInt8 = 4) -> ClientMessageID {
        var bytes = random
        bytes[6] = (bytes[6] & 0x0F) | version << 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return ClientMessageID(unchecked: String(decoding: text, as: UTF8.self))
    }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// FNV-1a over the ID's bytes, eight at a time: an unseeded hash for finding repeats by
    /// sorting (``repeatedClientIDs(count:_:)``), never for a table others can fill with collisions.
    public var fnv1a: UInt64 {
        var text = rawValue
        return text.withUTF8 { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            guard let base = bytes.baseAddress else { return hash }
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
                hash = (hash ^ word) &* 0x0000_0100_0000_01b3
                offset += 8
            }
            while offset < bytes.count {
                hash = (hash ^ UInt64(bytes[offset])) &* 0x0000_0100_0000_01b3
                offset += 1
            }
            return hash
        }
    }

    static func isCanonicalUUID(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { isCanonicalUUID(utf8: $0) }
    }

    static func isCanonicalUUID(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let isHex =
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
                guard isHex else { return false }
            }
        }
        return true
    }
}
