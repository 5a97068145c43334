/// The protocol version of an HTTP/1.x message, such as `HTTP/1.1`.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public let major: Int
    public let minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    // Named as the protocol writes them (HTTP/1.0, HTTP/1.1): `http10` would read as ten.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// `"HTTP/1.1"`, as written on the wire.
    public var description: String { "HTTP/\(major).\(minor)" }

    /// Reads `HTTP/<digit>.<digit>` (RFC 9112 §2.3); nil for anything else.
    init?(_ bytes: some Collection<UInt8>) {
        let text = Array(bytes)
        guard text.count == 8, text.starts(with: Array("HTTP/".utf8)), text[6] == UInt8(ascii: "."),
            let major = ASCII.digitValue(text[5]), let minor = ASCII.digitValue(text[7])
        else { return nil }
        self.init(major: major, minor: minor)
    }
}
