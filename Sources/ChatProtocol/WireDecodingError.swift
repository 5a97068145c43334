/// Why an answer or a live event of wire v1 was refused by ``WireDecoder``.
public enum WireDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes break the contract (not JSON, a missing or mistyped field, a value out of range):
    /// the reason names the part and the field, e.g. `message 3 of the page: "sequence" is 0, outside 1…9999900000`.
    case contract(String)
    /// Parsing had not finished when the request's deadline passed: a slow answer, not a wrong one.
    case deadlinePassed(what: String, byteCount: Int)

    public var description: String {
        switch self {
        case .contract(let reason):
            reason
        case .deadlinePassed(let what, let byteCount):
            "decoding \(what) (\(byteCount) bytes) did not finish within the request deadline"
        }
    }
}
