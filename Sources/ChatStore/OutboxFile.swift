import ChatDomain

/// Reads and writes outbox files `<ordinal>-<client-message-id>.json` and `read.json`.
public enum OutboxFile {
    /// Digits in an ordinal: nanoseconds since 1970 fit in 20, and fixed width makes `ls` order = queue order.
    public static let ordinalWidth = 20
    static let keys: [String] = ["attempts", "clientMessageId", "createdAt", "error", "state", "text"]

    /// `<ordinal, 20 digits>-<id>.json`, written byte by byte into one string (a send names its
    /// file with it; joining five strings was an eighth of a send's instructions).
    public static func fileName(ordinal: UInt64, id: ClientMessageID) -> String {
        let idBytes = id.rawValue.utf8
        guard idBytes.count == nameLength - ordinalWidth - 6 else {
            let digits = String(ordinal)
            return String(repeating: "0", count: ordinalWidth - digits.count) + digits + "-" + id.rawValue + ".json"
        }
        return String(unsafeUninitializedCapacity: nameLength) { name in
            var value = ordinal
            for index in stride(from: ordinalWidth - 1, through: 0, by: -1) {
                name[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            name[ordinalWidth] = UInt8(ascii: "-")
            var index = ordinalWidth + 1
            for byte in idBytes {
                name[index] = byte
                index += 1
            }
            for byte in ".json".utf8 {
                name[index] = byte
                index += 1
            }
            return index
        }
    }

    /// Splits an outbox file name into ordinal and ID; nil for any other name.
    /// The length of every outbox file name: ordinal, dash, client message ID, `.json`.
    static let nameLength = ordinalWidth + 1 + 36 + 5

    public static func parseName(_ name: String) -> (ordinal: UInt64, id: ClientMessageID)? {
        let bytes = Array(name.utf8)
        guard bytes.count == nameLength, bytes[ordinalWidth] == UInt8(ascii: "-"), name.hasSuffix(".json"),
            bytes[0..<ordinalWidth].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let ordinal = UInt64(String(decoding: bytes[0..<ordinalWidth], as: UTF8.self)),
            let id = try? ClientMessageID(
                String(decoding: bytes[(ordinalWidth + 1)..<(ordinalWidth + 37)], as: UTF8.self))
        else { return nil }
        return (ordinal, id)
    }

    /// One line: keys sorted, `error` only when failed.
    public static func encode(_ entry: OutboxEntry) -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{")
        writer.key("attempts")
        writer.write(entry.attempts)
        writer.raw(",")
        writer.key("clientMessageId")
        writer.write(entry.clientMessageID.rawValue)
        writer.raw(",")
        writer.key("createdAt")
        writer.write(entry.createdAt)
        if entry.state == .failed, let error = entry.error {
            writer.raw(",")
            writer.key("error")
            writer.write(error)
        }
        writer.raw(",")
        writer.key("state")
        writer.write(entry.state.rawValue)
        writer.raw(",")
        writer.key("text")
        writer.write(entry.text)
        writer.raw("}\n")
        return writer.bytes
    }

    /// Reads an outbox file named `name`; nil with problems when it is damaged.
    public static func decode(_ bytes: [UInt8], name: String, path: String) -> (
        entry: OutboxEntry?, problems: [StoreProblem]
    ) {
        var problems: [StoreProblem] = []
        guard let parsedName = parseName(name) else {
            problems.append(
                StoreProblem(
                    path: path, "not an outbox file name; expected <20-digit ordinal>-<client message ID>.json"))
            return (nil, problems)
        }
        guard let value = parseWholeFile(bytes, path: path, problems: &problems),
            var reader = RecordReader(value, what: "an outbox message", path: path, line: 1, problems: &problems)
        else { return (nil, problems) }
        let id = reader.clientMessageID("clientMessageId")
        let text = reader.messageText("text")
        let createdAt = reader.string("createdAt")
        let attempts = reader.integer("attempts", atLeast: 0)
        let stateText = reader.string("state")
        let error = reader.string("error", required: false)
        reader.rejectUnknownKeys(keys)
        var state: SendState?
        if let stateText {
            state = SendState(rawValue: stateText)
            if state == nil {
                reader.problem("\"state\" must be \"pending\" or \"failed\", found \(quoted(stateText))")
            }
        }
        if let id, id != parsedName.id {
            reader.problem("the file name says \(parsedName.id) but \"clientMessageId\" is \(id); the two must match")
        }
        if state == .pending, error != nil {
            reader.problem("a pending message has an \"error\"; remove it or set \"state\" to \"failed\"")
        }
        problems.append(contentsOf: reader.problems)
        guard reader.problems.isEmpty, let id, let text, let createdAt, let attempts, let state else {
            return (nil, problems)
        }
        let entry = OutboxEntry(
            ordinal: parsedName.ordinal, clientMessageID: id, text: text, createdAt: createdAt,
            state: state, attempts: attempts, error: error)
        if encode(entry) != bytes {
            problems.append(
                StoreProblem(
                    path: path, line: 1, "not in canonical form (one line, keys sorted, no spaces)", severity: .warning)
            )
        }
        return (entry, problems)
    }

    public static func encodeReadPosition(_ upTo: Int) -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{")
        writer.key("readUpTo")
        writer.write(upTo)
        writer.raw("}\n")
        return writer.bytes
    }

    public static func decodeReadPosition(_ bytes: [UInt8], path: String) -> (upTo: Int?, problems: [StoreProblem]) {
        var problems: [StoreProblem] = []
        guard let value = parseWholeFile(bytes, path: path, problems: &problems),
            var reader = RecordReader(value, what: "a read position", path: path, line: 1, problems: &problems)
        else { return (nil, problems) }
        let upTo = reader.integer("readUpTo", atLeast: 0)
        reader.rejectUnknownKeys(["readUpTo"])
        problems.append(contentsOf: reader.problems)
        return (reader.problems.isEmpty ? upTo : nil, problems)
    }
}
