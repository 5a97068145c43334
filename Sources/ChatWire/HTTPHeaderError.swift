/// A header the serializer refuses to write: a CR, LF or NUL in its name or value (or in the
/// start line) would end the line early and let the rest pass as a header of its own
/// (header injection), e.g. a token `abc\r\nX-Injected: 1`.
///
/// The message names the header but never quotes the value: it may be a credential.
public struct HTTPHeaderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The header's name with its control characters made visible, or `start line`.
    public let field: String
    /// One line saying what is wrong and what to do.
    public let message: String

    public var description: String { message }

    static func controlInName(_ name: String) -> Self {
        Self(
            field: ASCII.quoted(name.utf8),
            message:
                "the header name \(ASCII.quoted(name.utf8)) contains CR, LF or NUL; header names are tokens on one line"
        )
    }

    static func controlInValue(name: String) -> Self {
        Self(
            field: ASCII.quoted(name.utf8),
            message:
                "the value of header \(ASCII.quoted(name.utf8)) contains CR, LF or NUL (not shown: it may be secret); header values are one line without control characters"
        )
    }

    static func controlInStartLine() -> Self {
        Self(field: "start line", message: "the request or status line contains CR, LF or NUL; it must be one line")
    }
}
