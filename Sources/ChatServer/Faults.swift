/// Faults the reference server injects on demand, so tests and demos can prove the client's
/// rules (retry with the same ID, backoff, Retry-After, catch-up after a drop, dedup by ID).
///
/// Parsed from `--faults` text, comma-separated `key=value` pairs in any order:
///
/// | key | value | effect |
/// | --- | --- | --- |
/// | `drop-reply` | probability | a POST is committed (durable), then the connection is closed without a reply |
/// | `error5xx` | probability | a request is answered 503 before anything is done |
/// | `rate-limit` | probability`:`seconds | a request is answered 429 with `Retry-After: seconds` before anything is done |
/// | `latency` | duration | every HTTP reply waits this long first |
/// | `live-close` | duration | every live socket is closed (code 1001) this long after it opened |
/// | `live-drop` | probability | a live event is not sent to a socket |
/// | `live-dup` | probability | a live event is sent twice |
/// | `live-reorder` | probability | a live event is held back and sent after the next one |
/// | `live-hold` | count | a live socket's first events are held until this many wait, then sent back to back (one burst); later ones go as they come |
/// | `reject-text` | word | a POST whose text contains the word is refused with 400 (nothing is committed) |
/// | `no-start` | `404` or `405` | `POST /v1/conversations` is answered so, as by a server from before that extension |
/// | `seed` | integer | seeds every decision (default 0) |
///
/// Probabilities are decimals from 0 to 1; durations are `250ms` or `10s`. Every decision is a
/// pure function of the seed, the kind of fault and a counter (the n-th request, the n-th event
/// of the k-th live socket), so a run with one client at a time is reproducible.
public struct Faults: Sendable, Hashable, CustomStringConvertible {
    public var dropReply = 0.0
    public var error5xx = 0.0
    public var rateLimit = 0.0
    /// The `Retry-After` of a rate-limit fault, in seconds.
    public var retryAfterSeconds = 1
    /// Added before every HTTP reply.
    public var latencyMilliseconds = 0
    /// Each live socket is closed this long after it opened; nil: never.
    public var liveCloseMilliseconds: Int?
    public var liveDrop = 0.0
    public var liveDuplicate = 0.0
    public var liveReorder = 0.0
    /// A live socket's first events wait until this many are queued, then go out together; nil: never held.
    public var liveHold: Int?
    /// A POST whose text contains this is refused with 400: a rejection a test can aim at one message.
    public var rejectText: String?
    /// `POST /v1/conversations` is answered with this status (404 or 405), as by a server without it.
    public var noStartStatus: Int?
    public var seed: UInt64 = 0

    /// No faults: a well-behaved server.
    public static let none = Faults()

    public init() {}

    /// Parses `--faults` text such as `drop-reply=0.2,rate-limit=0.1:2,latency=5ms,seed=7`.
    /// - Throws: ``FaultsError`` naming the pair that is wrong and what is expected.
    public init(parsing text: String) throws(FaultsError) {
        for pair in text.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw .malformed(String(pair)) }
            let key = String(parts[0]).trimmingSpaces()
            let value = String(parts[1]).trimmingSpaces()
            switch key {
            case "drop-reply": dropReply = try Self.probability(key, value)
            case "error5xx": error5xx = try Self.probability(key, value)
            case "rate-limit":
                let pieces = value.split(separator: ":", omittingEmptySubsequences: false)
                rateLimit = try Self.probability(key, String(pieces[0]))
                if pieces.count == 2 {
                    guard let seconds = Int(pieces[1]), (0...86_400).contains(seconds) else {
                        throw .badValue(
                            key: key, value: value,
                            expected: "a probability, optionally followed by :seconds (0 to 86400), like 0.1:2")
                    }
                    retryAfterSeconds = seconds
                } else if pieces.count > 2 {
                    throw .badValue(
                        key: key, value: value, expected: "a probability, optionally followed by :seconds, like 0.1:2")
                }
            case "latency": latencyMilliseconds = try Self.duration(key, value)
            case "live-close":
                let milliseconds = try Self.duration(key, value)
                guard milliseconds > 0 else {
                    throw .badValue(key: key, value: value, expected: "a duration above zero, like 10s")
                }
                liveCloseMilliseconds = milliseconds
            case "live-drop": liveDrop = try Self.probability(key, value)
            case "live-dup": liveDuplicate = try Self.probability(key, value)
            case "live-reorder": liveReorder = try Self.probability(key, value)
            case "live-hold":
                guard let count = Int(value), (1...LiveSession.maxQueuedEvents).contains(count) else {
                    throw .badValue(
                        key: key, value: value,
                        expected: "a number of events from 1 to \(LiveSession.maxQueuedEvents), like live-hold=1000")
                }
                liveHold = count
            case "reject-text":
                guard !value.isEmpty else {
                    throw .badValue(key: key, value: value, expected: "a word to refuse, like reject-text=forbidden")
                }
                rejectText = value
            case "no-start":
                guard let status = Int(value), status == 404 || status == 405 else {
                    throw .badValue(
                        key: key, value: value,
                        expected: "404 or 405, the answer of a server without POST /v1/conversations")
                }
                noStartStatus = status
            case "seed":
                guard let number = UInt64(value) else {
                    throw .badValue(key: key, value: value, expected: "a whole number from 0 to \(UInt64.max)")
                }
                seed = number
            default:
                throw .unknownKey(key)
            }
        }
    }

    /// The canonical `--faults` text for these faults (only what differs from none, and the seed).
    public var description: String {
        var pairs: [String] = []
        if dropReply > 0 { pairs.append("drop-reply=\(dropReply)") }
        if error5xx > 0 { pairs.append("error5xx=\(error5xx)") }
        if rateLimit > 0 { pairs.append("rate-limit=\(rateLimit):\(retryAfterSeconds)") }
        if latencyMilliseconds > 0 { pairs.append("latency=\(latencyMilliseconds)ms") }
        if let liveCloseMilliseconds { pairs.append("live-close=\(liveCloseMilliseconds)ms") }
        if liveDrop > 0 { pairs.append("live-drop=\(liveDrop)") }
        if liveDuplicate > 0 { pairs.append("live-dup=\(liveDuplicate)") }
        if liveReorder > 0 { pairs.append("live-reorder=\(liveReorder)") }
        if let liveHold { pairs.append("live-hold=\(liveHold)") }
        if let rejectText { pairs.append("reject-text=\(rejectText)") }
        if let noStartStatus { pairs.append("no-start=\(noStartStatus)") }
        if pairs.isEmpty { return "none" }
        pairs.append("seed=\(seed)")
        return pairs.joined(separator: ",")
    }

    /// Whether any fault is on.
    public var isActive: Bool { description != "none" }

    private static func probability(_ key: String, _ value: String) throws(FaultsError) -> Double {
        guard let number = Double(value), number >= 0, number <= 1 else {
            throw .badValue(key: key, value: value, expected: "a probability from 0 to 1, like 0.1")
        }
        return number
    }

    private static func duration(_ key: String, _ value: String) throws(FaultsError) -> Int {
        let (digits, scale): (Substring, Int) =
            if value.hasSuffix("ms") { (value.dropLast(2), 1) } else if value.hasSuffix("s") {
                (value.dropLast(1), 1000)
            } else { ("", 0) }
        guard scale > 0, let number = Int(digits), number >= 0, number <= 86_400_000 / scale else {
            throw .badValue(key: key, value: value, expected: "a duration like 250ms or 10s")
        }
        return number * scale
    }
}

/// A `--faults` text that does not parse: one line naming the pair and what would be accepted.
public enum FaultsError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformed(String)
    case unknownKey(String)
    case badValue(key: String, value: String, expected: String)

    public var description: String {
        switch self {
        case .malformed(let pair):
            "--faults: \"\(pair)\" is not key=value; separate pairs with commas, like drop-reply=0.2,seed=7"
        case .unknownKey(let key):
            "--faults: unknown fault \"\(key)\"; known: drop-reply, error5xx, rate-limit, latency, live-close, live-drop, live-dup, live-reorder, live-hold, reject-text, no-start, seed"
        case .badValue(let key, let value, let expected):
            "--faults: \(key)=\"\(value)\" is not valid; expected \(expected)"
        }
    }
}

/// The kinds of fault decision; each draws from its own stream of the seed.
enum FaultKind: UInt64, Sendable {
    case dropReply = 1
    case error5xx, rateLimit, liveDrop, liveDuplicate, liveReorder
}

extension Faults {
    /// Whether the fault of `kind` with `probability` strikes decision number `index`:
    /// SplitMix64 of (seed, kind, index), so the same run makes the same decisions.
    func strikes(_ kind: FaultKind, probability: Double, index: UInt64) -> Bool {
        guard probability > 0 else { return false }
        guard probability < 1 else { return true }
        var state = seed &+ kind.rawValue &* 0xD1B5_4A32_D192_ED03 &+ index &* 0x9E37_79B9_7F4A_7C15
        state = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
        state = (state ^ (state >> 27)) &* 0x94D0_49BB_1331_11EB
        state ^= state >> 31
        return Double(state >> 11) / Double(UInt64(1) << 53) < probability
    }
}

extension String {
    func trimmingSpaces() -> String {
        guard let first = firstIndex(where: { $0 != " " }), let last = lastIndex(where: { $0 != " " }) else {
            return ""
        }
        return String(self[first...last])
    }
}
