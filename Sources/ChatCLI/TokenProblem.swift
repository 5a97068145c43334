/// Why a token cannot be sent: it goes into the `Authorization` header, where a CR LF would
/// start a header of its own (`abc\r\nX-Injected: 1`). The words never quote the token.
enum TokenProblem: CustomStringConvertible {
    case controlOrSpace
    case notASCII

    /// The problem with `token`, or nil when it is one word of visible ASCII.
    init?(_ token: String) {
        if token.unicodeScalars.contains(where: {
            $0.value <= 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value)
        }) {
            self = .controlOrSpace
        } else if !token.unicodeScalars.allSatisfy({ $0.value < 0x80 }) {
            self = .notASCII
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .controlOrSpace: "contains a control character or a space (not shown; a token is one word)"
        case .notASCII: "contains a character outside visible ASCII (not shown; tokens are ASCII)"
        }
    }
}
