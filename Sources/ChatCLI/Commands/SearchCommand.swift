import ChatDomain
import ChatStore
import ChatSystem

/// `chatdir search`: stored messages whose text matches, across conversations, like grep.
enum SearchCommand: Command {
    static let spec = CommandSpec(
        name: "search",
        summary: "Find stored messages whose text matches a pattern, in every conversation or the ones named.",
        usage: ["PATTERN [CONV...] [--sender USER] [--since DATE] [--until DATE] [-i] [-E | -F] [-m N] [--json | -c]"],
        options: [
            .init(name: "--sender", value: "USER", help: "only messages sent by USER"),
            .init(name: "--since", value: "DATE", help: "only messages sent at or after DATE"),
            .init(name: "--until", value: "DATE", help: "only messages sent before DATE"),
            .init(
                name: "--ignore-case", value: nil, help: "match letters whatever their case (as grep -i)", short: "i"),
            .init(
                name: "--regex", value: nil, help: "PATTERN is a POSIX extended regular expression (as grep -E)",
                short: "E"),
            .init(
                name: "--fixed-strings", value: nil, help: "PATTERN is a fixed string, the default (as grep -F)",
                short: "F"),
            .init(name: "--limit", value: "N", help: "stop after N hits in all (grep -m stops per file)", short: "m"),
            .init(name: "--json", value: nil, help: "one JSON object per hit (JSON Lines), for jq and scripts"),
            .init(
                name: "--count", value: nil,
                help: "print only how many messages match, as CONV:N per conversation searched (as grep -c)", short: "c"
            ),
        ],
        discussion: """
            The options grep also has take grep's letters, and letters combine as in grep:
            `chatdir search -ic pizza` is --ignore-case --count.

            PATTERN is a fixed string by default (the same bytes, as grep -F). With --regex it is an
            extended regular expression matched on bytes in the C locale (`.` is one byte,
            --ignore-case folds ASCII letters only); without, --ignore-case folds each letter.
            Conversations are searched in ID order, each oldest message first; outbox messages
            are not searched. Each hit prints as CONV:SEQ  TIME  SENDER  TEXT, the match
            highlighted on a terminal (not in a pipe, nor with NO_COLOR set).

            DATE is local time (TZ) in one of the forms
              \(SearchDate.forms).
            A date alone is its midnight, and --until is exclusive: --since 2026-11-28 --until
            2026-11-29 is the whole of 28 November.

            --count prints CONV:N for every conversation searched, 0 included, and nothing else; a
            plain fixed string with no filter is counted without decoding the records.

            Exit status, as grep: 0 when something was found, 1 when nothing was, 64 for a bad
            command line (an invalid pattern is named with regcomp's reason).

            Examples:
              chatdir search pizza
              chatdir search -i 'on my way' dinner --since 2026-11-29
              chatdir search -E '^(yes|no)[.!]*$' --sender bob --json | jq -r .text
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        let pattern = try arguments.positional(0, "PATTERN (the text to look for)")
        let ids = try arguments.positionals.dropFirst().map { text throws(UsageError) in
            try context.conversationID(text)
        }
        let query = try Query(context, pattern: pattern)
        let limit = try arguments.integer("--limit", in: 1...Int(Int32.max))
        let store = try context.openStore()
        let conversations = try (ids.isEmpty ? store.conversationIDs() : ids).map { id throws(StoreError) in
            try store.existingConversation(id)
        }
        if arguments.flag("--count") {
            guard !arguments.flag("--json") else {
                throw context.usage("--count and --json do not go together: --count prints CONV:N lines")
            }
            return try count(conversations, query: query, limit: limit, output: context.output)
        }
        var printer = HitPrinter(output: context.output, json: arguments.flag("--json"))
        // Hits found before a damaged file stops the search are still printed.
        defer { printer.flush() }
        var found = 0
        for conversation in conversations {
            let goOn = try conversation.search(query.matcher, where: query.includes) { hit in
                printer.add(hit)
                found += 1
                return limit.map { found < $0 } ?? true
            }
            if !goOn { break }
        }
        return found > 0 ? 0 : 1
    }

    /// `--count`: `CONV:N` for each conversation. A fixed, case-sensitive pattern with no filter
    /// and no limit goes through the library's scan, which never decodes a record whose raw
    /// text holds no escape; anything else counts the hits ``Conversation/search`` finds.
    static func count(_ conversations: [Conversation], query: Query, limit: Int?, output: Output) throws -> Int32 {
        var lines = ""
        var total = 0
        for conversation in conversations {
            var found = 0
            if let word = query.fixed, query.sender == nil, query.since == nil, query.until == nil, limit == nil {
                found = try conversation.countMessages(containing: word)
            } else {
                _ = try conversation.search(query.matcher, where: query.includes) { _ in
                    found += 1
                    return limit.map { total + found < $0 } ?? true
                }
            }
            total += found
            lines += "\(conversation.id):\(found)\n"
            if let limit, total >= limit { break }
        }
        Output.write(1, lines)
        return total > 0 ? 0 : 1
    }

    /// What the command line asks for: the matcher and the filters on sender and time.
    struct Query {
        var matcher: TextMatcher
        /// The pattern when it is a plain fixed string (no --regex, no --ignore-case).
        var fixed: String?
        var sender: UserID?
        var since: Int?
        var until: Int?

        init(_ context: Context, pattern: String) throws(UsageError) {
            let arguments = context.arguments
            let ignoreCase = arguments.flag("--ignore-case")
            // An empty pattern would match everything, or (as a regex) nothing worth marking.
            guard !pattern.isEmpty else { throw context.usage("PATTERN is empty; give some text to look for") }
            if arguments.flag("--regex") && arguments.flag("--fixed-strings") {
                throw context.usage("--regex (-E) and --fixed-strings (-F) do not go together: give one")
            }
            if arguments.flag("--regex") {
                do { matcher = .regex(try ExtendedRegex(pattern, ignoreCase: ignoreCase)) } catch {
                    throw context.usage("PATTERN \(error)")
                }
            } else {
                matcher = ignoreCase ? .ignoringCase(pattern) : .fixed(pattern)
                if !ignoreCase { fixed = pattern }
            }
            if let text = arguments.value("--sender") {
                do { sender = try UserID(text) } catch { throw context.usage("--sender: \(error)") }
            }
            func date(_ name: String) throws(UsageError) -> Int? {
                guard let text = arguments.value(name) else { return nil }
                guard let seconds = SearchDate.parse(text) else {
                    throw context.usage(
                        "\(name): \(text.debugDescription) is not a date; use one of \(SearchDate.forms)")
                }
                return seconds
            }
            since = try date("--since")
            until = try date("--until")
        }

        /// Whether `message` passes the sender and time filters. A `sentAt` that is not in the
        /// server's form has no known time: a time filter leaves it out.
        func includes(_ message: Message) -> Bool {
            if let sender, message.senderID != sender { return false }
            guard since != nil || until != nil else { return true }
            guard let sent = TimeText.parse(message.sentAt) else { return false }
            if let since, sent < since { return false }
            if let until, sent >= until { return false }
            return true
        }
    }
}

/// Prints search hits as text or JSON lines, in writes of up to 64 KiB.
struct HitPrinter {
    var output: Output
    var json: Bool
    var time = TimeText()
    private var pending = LineBuffer()

    init(output: Output, json: Bool) {
        self.output = output
        self.json = json
    }

    mutating func add(_ hit: SearchHit) {
        pending.append(line(hit))
    }

    mutating func flush() {
        pending.flush()
    }

    func line(_ hit: SearchHit) -> String {
        let message = hit.message
        if json {
            return JSONLine.encode(
                .object([
                    ("conversationId", .string(hit.conversation.rawValue)), ("sequence", .integer(message.sequence)),
                    ("clientMessageId", .string(message.clientMessageID.rawValue)),
                    ("senderId", .string(message.senderID.rawValue)),
                    ("sentAt", .string(message.sentAt)), ("text", .string(message.text)),
                ]))
        }
        let place = output.styled("\(hit.conversation):\(message.sequence)", .dim)
        let text = highlighted(message.text, hit.matches)
        return place + "  " + output.safe(time.format(message.sentAt)) + "  "
            + output.styled(output.safe(message.senderID.rawValue), .bold)
            + "  " + text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ")
    }

    /// The text made terminal-safe, each match in red when colour is on. A match is widened to
    /// whole characters (a byte regex can end inside one).
    func highlighted(_ text: String, _ matches: [Range<Int>]) -> String {
        guard output.useColor else { return output.safe(text) }
        let bytes = Array(text.utf8)
        func isContinuation(_ index: Int) -> Bool { index < bytes.count && bytes[index] & 0xC0 == 0x80 }
        var result = ""
        var done = 0
        for match in matches {
            var lower = max(match.lowerBound, done)
            var upper = match.upperBound
            while lower > done, isContinuation(lower) { lower -= 1 }
            while isContinuation(upper) { upper += 1 }
            guard lower < upper else { continue }
            result += output.safe(String(decoding: bytes[done..<lower], as: UTF8.self))
            result += output.styled(output.safe(String(decoding: bytes[lower..<upper], as: UTF8.self)), .red)
            done = upper
        }
        return result + output.safe(String(decoding: bytes[done...], as: UTF8.self))
    }
}
