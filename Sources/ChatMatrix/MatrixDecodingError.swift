/// Why a Matrix answer was refused by ``MatrixDecoder``: one short line that names the field.
public enum MatrixDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not what the client-server API says (not JSON, a known key of the wrong
    /// type, an identifier outside its grammar, a count or size over its cap). `path` is where,
    /// as the JSON reads (`rooms.join.!abc.timeline.events[3].content.body`); `reason` what.
    case invalid(path: String, reason: String)
    /// Parsing had not finished when the request's deadline passed: a slow answer, not a wrong one.
    case deadlinePassed(what: String, byteCount: Int)

    /// The longest ``description`` is: a reason is for a log line, not a dump of the answer.
    public static let maxDescriptionLength = 400

    public var description: String {
        let text =
            switch self {
            case .invalid(let path, let reason): path.isEmpty ? reason : "\(path): \(reason)"
            case .deadlinePassed(let what, let byteCount):
                "decoding \(what) (\(byteCount) bytes) did not finish within the request deadline"
            }
        return MatrixText.oneLine(text, maxLength: Self.maxDescriptionLength)
    }
}
