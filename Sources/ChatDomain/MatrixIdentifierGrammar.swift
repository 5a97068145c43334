/// The grammar shared by Matrix identifiers (client-server specification, appendix
/// "Identifier grammar"): a sigil, an opaque or local part, and a server name after the first
/// `:`; at most 255 bytes in all. The local part is read as the historical grammar allows
/// (printable ASCII except `:`), since IDs made by older servers are still in rooms today.
/// Here, below the Matrix API's module, because a store's user IDs and records carry them.
public enum MatrixIdentifierGrammar {
    /// The longest identifier, in bytes, as the specification caps them.
    public static let maxBytes = 255

    /// Whether the server name after the local part is required, optional (room version 12 room
    /// IDs and room version 3+ event IDs have none) or absent.
    public enum Server: Sendable {
        case required, optional
    }

    /// nil when `text` is a valid identifier with `sigil`, otherwise the rule it breaks.
    public static func problem(_ text: String, sigil: UInt8, server: Server) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxBytes else {
            return "\(bytes.count) bytes, more than \(maxBytes)"
        }
        guard bytes.first == sigil else { return "does not start with \"\(Character(Unicode.Scalar(sigil)))\"" }
        let rest = bytes.dropFirst()
        let colon = rest.firstIndex(of: UInt8(ascii: ":"))
        let local = rest[..<(colon ?? rest.endIndex)]
        guard !local.isEmpty else { return "the part before the server name is empty" }
        guard local.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return "the local part holds a character outside printable ASCII"
        }
        guard let colon else {
            return server == .required ? "no \":\" and server name" : nil
        }
        return serverNameProblem(rest[(colon + 1)...])
    }

    /// nil when `bytes` is a server name: a DNS name or IPv4 address, or `[` IPv6 `]`, then an
    /// optional `:port` of 1–5 digits.
    public static func serverNameProblem(_ bytes: ArraySlice<UInt8>) -> String? {
        var host = bytes[...]
        var port: ArraySlice<UInt8>?
        if host.first == UInt8(ascii: "[") {
            guard let close = host.firstIndex(of: UInt8(ascii: "]")) else { return "an IPv6 server name without \"]\"" }
            let address = host[(host.startIndex + 1)..<close]
            guard (2...45).contains(address.count), address.allSatisfy(isIPv6Character) else {
                return "not an IPv6 address in the server name"
            }
            let after = host[(close + 1)...]
            host = host[...close]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else { return "unexpected characters after \"]\"" }
                port = after.dropFirst()
            }
        } else {
            if let colon = host.firstIndex(of: UInt8(ascii: ":")) {
                port = host[(colon + 1)...]
                host = host[..<colon]
            }
            guard !host.isEmpty else { return "the server name is empty" }
            guard host.allSatisfy(isDNSCharacter) else {
                return "the server name holds a character other than letters, digits, \"-\" and \".\""
            }
        }
        if let port {
            guard (1...5).contains(port.count), port.allSatisfy({ (0x30...0x39).contains($0) }) else {
                return "the server name's port is not 1 to 5 digits"
            }
        }
        return nil
    }

    private static func isDNSCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."): true
        default: false
        }
    }

    private static func isIPv6Character(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x46, 0x61...0x66, UInt8(ascii: ":"), UInt8(ascii: "."): true
        default: false
        }
    }
}
