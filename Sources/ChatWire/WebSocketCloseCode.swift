/// Close status codes (RFC 6455 §7.4 and the IANA registry) and which may appear on the wire.
public enum WebSocketCloseCode {
    public static let normalClosure: UInt16 = 1000
    public static let goingAway: UInt16 = 1001
    public static let protocolError: UInt16 = 1002
    public static let unsupportedData: UInt16 = 1003
    /// Reported locally when a close frame had no code; never sent.
    public static let noStatusReceived: UInt16 = 1005
    /// Reported locally when the connection dropped without a close frame; never sent.
    public static let abnormalClosure: UInt16 = 1006
    public static let invalidPayloadData: UInt16 = 1007
    public static let policyViolation: UInt16 = 1008
    public static let messageTooBig: UInt16 = 1009
    public static let internalError: UInt16 = 1011

    /// Whether `code` may be sent in a close frame: 1000–1003 and 1007–1014 (registered),
    /// 3000–4999 (libraries and applications). 1004 is reserved; 1005, 1006 and 1015 are only
    /// for reporting; 1016–2999 are unassigned.
    public static func isValidOnWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
