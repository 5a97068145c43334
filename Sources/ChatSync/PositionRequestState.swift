/// The rule for posting a position (read or delivered) for one conversation: forward only, one
/// request at a time, latest wins.
///
/// The wish (``wanted``) only grows. While a request is in flight a newer wish waits; when
/// the request ends the newest wish is sent next, so a burst of reads sends at most two requests
/// and never a lower number than one already sent. A failed request is simply retried by the
/// next attempt.
public struct PositionRequestState: Sendable, Equatable {
    public private(set) var wanted: Int
    /// What the server has confirmed as my read position.
    public private(set) var confirmed: Int
    public private(set) var inFlight: Int?
    /// The highest wish the server has answered; the server clamps a wish past its last
    /// sequence, and asking again would not change its answer.
    public private(set) var answered = 0

    public init(wanted: Int = 0, confirmed: Int = 0) {
        self.wanted = wanted
        self.confirmed = confirmed
    }

    public mutating func want(_ sequence: Int) {
        wanted = max(wanted, sequence)
    }

    /// The number to send now, if any (and marks it in flight).
    public mutating func nextRequest() -> Int? {
        guard inFlight == nil, wanted > max(confirmed, answered) else { return nil }
        inFlight = wanted
        return wanted
    }

    /// The request in flight ended: with the server's readUpTo, or nil when it failed.
    public mutating func finished(confirmed serverValue: Int?) {
        if let serverValue, let sent = inFlight {
            confirmed = max(confirmed, serverValue)
            answered = max(answered, sent)
        }
        inFlight = nil
    }

    /// The server's position arrived some other way (a receipt event, a fetch).
    public mutating func observed(confirmed serverValue: Int) {
        confirmed = max(confirmed, serverValue)
    }
}
