import ChatDomain

/// Reads and writes segment files: a JSON array with one message object per line,
/// ascending by sequence, keys in sorted order, no spaces, LF, trailing newline.
public enum SegmentFile {
    static let messageKeys: Set<String> = ["clientMessageId", "senderId", "sentAt", "sequence", "text"]

    /// The canonical bytes of a segment holding `messages` (which must be ascending by sequence).
    public static func encode(_ messages: [Message]) -> [UInt8] {
        var writer = JSONWriter(capacity: messages.count * 160 + 4)
        writer.raw("[\n")
        for (index, message) in messages.enumerated() {
            if index > 0 { writer.raw(",\n") }
            writeRecord(message, into: &writer)
        }
        writer.raw(messages.isEmpty ? "]\n" : "\n]\n")
        return writer.bytes
    }

    /// One message object in canonical form (the bytes of its line, without the comma).
    public static func writeRecord(_ message: Message, into writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("clientMessageId"); writer.write(message.clientMessageID.rawValue)
        writer.raw(","); writer.key("senderId"); writer.write(message.senderID.rawValue)
        writer.raw(","); writer.key("sentAt"); writer.write(message.sentAt)
        writer.raw(","); writer.key("sequence"); writer.write(message.sequence)
        writer.raw(","); writer.key("text"); writer.write(message.text)
        writer.raw("}")
    }

    /// The result of reading a segment: the messages that are sound, and every problem found.
    public struct Decoded: Sendable {
        public var messages: [Message]
        /// The line of each of ``messages`` (nil in a file not laid out one record per line).
        public var lines: [Int?] = []
        public var problems: [StoreProblem]
        /// The first error, if any: what a reader that must not guess throws.
        public var firstError: StoreProblem? { problems.first { $0.severity == .error } }
    }

    /// Reads a segment's bytes. `path` is used in problems; with `range`, every sequence must
    /// belong to it. Never throws: a damaged file yields problems, and the records that are sound.
    /// `reportLayout` adds warnings for records not in canonical form (`check` wants them; a
    /// reader does not, and re-encoding every record to compare was most of a screen's cost).
    public static func decode(_ bytes: [UInt8], path: String, range: SegmentRange?, reportLayout: Bool = true) -> Decoded {
        var problems: [StoreProblem] = []
        var records: [(line: Int?, label: String, value: JSONValue, content: Range<Int>?)] = []
        let lines = lineRanges(bytes)
        let isLineForm = lines.first.map { bytes[$0] == [UInt8(ascii: "[")] } ?? false

        if bytes.isEmpty {
            problems.append(StoreProblem(path: path, line: 1, "the file is empty; a segment is a JSON array of messages (restore it from git or another device)"))
        } else if isLineForm {
            // Canonical layout: "[" / one record per line, comma-terminated but the last / "]".
            guard let closing = lines.lastIndex(where: { !$0.isEmpty }), bytes[lines[closing]] == [UInt8(ascii: "]")], closing > 0 else {
                let last = (lines.lastIndex(where: { !$0.isEmpty }) ?? 0) + 1
                problems.append(StoreProblem(path: path, line: last, "the file ends before the closing ']': it was cut short (a crash of a tool that does not write atomically?); restore it from git or another device"))
                return Decoded(messages: [], problems: problems)
            }
            for index in 1..<closing {
                let lineNumber = index + 1
                var content = lines[index]
                let isLast = index == closing - 1
                let hasComma = content.last.map { bytes[$0] == UInt8(ascii: ",") } ?? false
                if hasComma { content = content.lowerBound..<(content.upperBound - 1) }
                if hasComma == isLast {
                    problems.append(StoreProblem(path: path, line: lineNumber, isLast
                        ? "a comma after the last record; remove it"
                        : "the record does not end with ','; put one at the end of this line"))
                }
                do {
                    records.append((lineNumber, "", try JSONParser.parse(bytes, in: content), content))
                } catch {
                    problems.append(StoreProblem(path: path, line: lineNumber, "not valid JSON: \(error.reason) (column \(error.offset - content.lowerBound + 1))"))
                }
            }
            if lines.count > closing + 1 || bytes.last != 0x0A {
                problems.append(StoreProblem(path: path, line: closing + 1, "the file should end with ']' and a newline", severity: .warning))
            }
        } else {
            // Valid JSON in another layout (a pretty-printer's, say): readable, but not canonical.
            if let value = parseWholeFile(bytes, path: path, problems: &problems) {
                if case let .array(elements) = value {
                    problems.append(StoreProblem(path: path, line: 1, "not in the canonical one-message-per-line layout; readers cope, but devices will not hold identical bytes until the sync worker rewrites it", severity: .warning))
                    for (index, element) in elements.enumerated() {
                        records.append((nil, "message \(index + 1): ", element, nil))
                    }
                } else {
                    problems.append(StoreProblem(path: path, line: 1, "expected a JSON array of messages, found \(value.typeDescription)"))
                }
            }
        }

        var found: [(message: Message, line: Int?)] = []
        var seenSequences: [Int: Int?] = [:]
        var seenIDs: [ClientMessageID: Int?] = [:]
        var previous: Int?
        for record in records {
            guard var reader = RecordReader(record.value, what: "a message", path: path, line: record.line, label: record.label, problems: &problems) else { continue }
            let id = reader.clientMessageID("clientMessageId")
            let sender = reader.userID("senderId")
            let sentAt = reader.string("sentAt")
            let sequence = reader.integer("sequence", atLeast: 1)
            let text = reader.messageText("text")
            reader.rejectUnknownKeys(messageKeys)
            if let sequence {
                if let earlier = seenSequences[sequence] {
                    reader.problem("sequence \(sequence) appears twice\(where_(earlier)); keep one of the two records")
                } else if let range, !range.contains(sequence) {
                    reader.problem("sequence \(sequence) does not belong in this file, which holds \(range); it belongs in \(SegmentRange(containing: sequence, size: range.last - range.first + 1).fileName)")
                } else if let previous, sequence < previous {
                    reader.problem("sequence \(sequence) comes after \(previous); records must be in ascending order of sequence")
                }
                if seenSequences[sequence] == nil && range?.contains(sequence) != false {
                    seenSequences[sequence] = record.line
                    previous = max(previous ?? sequence, sequence)
                }
            }
            if let id {
                if let earlier = seenIDs[id] {
                    reader.problem("client message ID \(id) appears twice\(where_(earlier)); a message is stored once, keep one of the two records")
                }
                seenIDs[id] = seenIDs[id] ?? record.line
            }
            problems.append(contentsOf: reader.problems)
            guard reader.problems.isEmpty, let id, let sender, let sentAt, let sequence, let text else { continue }
            let message = Message(sequence: sequence, clientMessageID: id, senderID: sender, text: text, sentAt: sentAt)
            found.append((message, record.line))
            if reportLayout, let content = record.content {
                var canonical = JSONWriter()
                writeRecord(message, into: &canonical)
                if !canonical.bytes.elementsEqual(bytes[content]) {
                    problems.append(StoreProblem(path: path, line: record.line, "the record is not in canonical form (keys sorted, no spaces, minimal escapes); readers cope, but devices will not hold identical bytes", severity: .warning))
                }
            }
        }
        found.sort { $0.message.sequence < $1.message.sequence }
        return Decoded(messages: found.map(\.message), lines: found.map(\.line), problems: problems)
    }

    private static func where_(_ line: Int??) -> String {
        if let line = line ?? nil { return " (also on line \(line))" }
        return ""
    }
}
