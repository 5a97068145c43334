import ChatDomain
import ChatSystem

/// Reads and writes segment files: a JSON array with one message object per line,
/// ascending by sequence, keys in sorted order, no spaces, LF, trailing newline.
public enum SegmentFile {
    static let messageKeys = Message.recordKeys

    /// The rules between a Matrix record's fields, each broken one as the words of a problem that
    /// name its key: one record has one form, so every device writes the same bytes for it. The
    /// canonical reader and the parser both apply them.
    static func matrixRuleProblems(
        clientMessageID: ClientMessageID, eventID: EventID, kind: MessageKind?, redacted: Bool, replaces: EventID?,
        text: String
    ) -> [String] {
        var problems: [String] = []
        if redacted {
            if !text.isEmpty {
                problems.append(
                    "\"text\" must be empty in a redacted record (\"redacted\":true): the redaction removed it")
            }
            if let kind {
                problems.append("\"kind\" (\(quoted(kind.rawValue))) is not written in a redacted record; remove it")
            }
            if replaces != nil {
                problems.append("\"replaces\" is not written in a redacted record; remove it")
            }
            let derived = ClientMessageID.derived(fromEventID: eventID)
            if clientMessageID != derived {
                problems.append(
                    "\"clientMessageId\" of a redacted record is the one derived from its event ID, \(derived), found \(clientMessageID); write that one"
                )
            }
        } else if kind == .unreadable, !text.isEmpty {
            problems.append("\"text\" must be empty when \"kind\" is \"unreadable\"")
        }
        if let replaces, replaces == eventID {
            problems.append("\"replaces\" names the record's own event \(eventID); an edit replaces another event")
        }
        return problems
    }

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

    /// `segment`'s bytes with `messages` added after its last record, which is `lastSequence`:
    /// the old bytes up to the closing bracket, then one line per new record. Only for a segment
    /// known to be canonical (the store writer's own bytes), and then byte-identical to
    /// ``encode(_:)`` of all the records. Nil, for the full path, unless `messages` ascend past
    /// `lastSequence` with client IDs found neither among themselves nor in `segment`.
    static func appending(_ messages: [Message], to segment: [UInt8], after lastSequence: Int) -> [UInt8]? {
        let closing = Array("}\n]\n".utf8)
        guard !messages.isEmpty, segment.count > closing.count,
            segment[(segment.count - closing.count)...].elementsEqual(closing)
        else { return nil }
        var previous = lastSequence
        var ids = Set<ClientMessageID>()
        var events = Set<EventID>()
        for message in messages {
            guard message.sequence > previous, ids.insert(message.clientMessageID).inserted,
                // Every canonical record opens with its ID, so this finds exactly the stored ones.
                Sys.find(
                    Array(("{\"clientMessageId\":\"" + message.clientMessageID.rawValue + "\"").utf8), in: segment,
                    from: 0) == nil
            else { return nil }
            if let eventID = message.eventID {
                // A canonical record's event ID follows its client ID, escaped as written; a
                // quote inside a text is always escaped, so only a record's key matches.
                var key = JSONWriter()
                key.raw("\",")
                key.key("eventId")
                key.write(eventID.rawValue)
                guard events.insert(eventID).inserted, Sys.find(key.bytes, in: segment, from: 0) == nil else {
                    return nil
                }
            }
            previous = message.sequence
        }
        var writer = JSONWriter(capacity: messages.count * 160 + 4)
        for message in messages {
            writer.raw(",\n")
            writeRecord(message, into: &writer)
        }
        writer.raw("\n]\n")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.count - 3 + writer.bytes.count)
        bytes += segment[..<(segment.count - 3)]
        bytes += writer.bytes
        return bytes
    }

    /// One message object in canonical form (the bytes of its line, without the comma): the
    /// record ``Message/writeRecord(into:)`` writes, which wire v1 shares.
    public static func writeRecord(_ message: Message, into writer: inout JSONWriter) {
        message.writeRecord(into: &writer)
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
    /// `storeProtocol` is the store's: a Matrix store's records each carry an event ID, a wire
    /// v1 store's none of the Matrix fields.
    public static func decode(
        _ bytes: [UInt8], path: String, range: SegmentRange?, reportLayout: Bool = true,
        protocol storeProtocol: StoreProtocol = .wire
    ) -> Decoded {
        var problems: [StoreProblem] = []
        // A record is either read by the fast path (canonical layout, no escapes) or parsed.
        var records: [(line: Int?, label: String, value: JSONValue?, content: Range<Int>?, fast: Message?)] = []
        let lines = lineRanges(bytes)
        let isLineForm = lines.first.map { bytes[$0] == [UInt8(ascii: "[")] } ?? false

        if bytes.isEmpty {
            problems.append(
                StoreProblem(
                    path: path, line: 1,
                    "the file is empty; a segment is a JSON array of messages (restore it from git or another device)"))
        } else if isLineForm {
            // Canonical layout: "[" / one record per line, comma-terminated but the last / "]".
            guard let closing = lines.lastIndex(where: { !$0.isEmpty }), bytes[lines[closing]] == [UInt8(ascii: "]")],
                closing > 0
            else {
                let last = (lines.lastIndex(where: { !$0.isEmpty }) ?? 0) + 1
                problems.append(
                    StoreProblem(
                        path: path, line: last,
                        "the file ends before the closing ']': it was cut short (a crash of a tool that does not write atomically?); restore it from git or another device"
                    ))
                return Decoded(messages: [], problems: GitConflictMarkers.explain(problems, bytes: bytes, path: path))
            }
            for index in 1..<closing {
                let lineNumber = index + 1
                var content = lines[index]
                let isLast = index == closing - 1
                let hasComma = content.last.map { bytes[$0] == UInt8(ascii: ",") } ?? false
                if hasComma { content = content.lowerBound..<(content.upperBound - 1) }
                if hasComma == isLast {
                    problems.append(
                        StoreProblem(
                            path: path, line: lineNumber,
                            isLast
                                ? "a comma after the last record; remove it"
                                : "the record does not end with ','; put one at the end of this line"))
                }
                if let message = canonicalRecord(bytes, content, protocol: storeProtocol) {
                    records.append((lineNumber, "", nil, content, message))
                    continue
                }
                do {
                    records.append((lineNumber, "", try JSONParser.parse(bytes, in: content), content, nil))
                } catch {
                    problems.append(
                        StoreProblem(
                            path: path, line: lineNumber,
                            "not valid JSON: \(error.reason) (column \(error.offset - content.lowerBound + 1))"))
                }
            }
            if lines.count > closing + 1 || bytes.last != 0x0A {
                problems.append(
                    StoreProblem(
                        path: path, line: closing + 1, "the file should end with ']' and a newline", severity: .warning)
                )
            }
        } else {
            // Valid JSON in another layout (a pretty-printer's, say): readable, but not canonical.
            if let value = parseWholeFile(bytes, path: path, problems: &problems) {
                if case .array(let elements) = value {
                    problems.append(
                        StoreProblem(
                            path: path, line: 1,
                            "not in the canonical one-message-per-line layout; readers cope, but devices will not hold identical bytes until the sync worker rewrites it",
                            severity: .warning))
                    for (index, element) in elements.enumerated() {
                        records.append((nil, "message \(index + 1): ", element, nil, nil))
                    }
                } else {
                    problems.append(
                        StoreProblem(
                            path: path, line: 1, "expected a JSON array of messages, found \(value.typeDescription)"))
                }
            }
        }

        var found: [(message: Message, line: Int?)] = []
        found.reserveCapacity(records.count)
        var seenSequences: [Int: Int?] = [:]
        var seenIDs: [ClientMessageID: Int?] = [:]
        var seenEvents: [EventID: Int?] = [:]
        var previous: Int?
        for record in records {
            var recordProblems: [StoreProblem] = []
            let fields: Fields
            if let message = record.fast {
                fields = Fields(
                    id: message.clientMessageID, sequence: message.sequence, eventID: message.eventID, message: message)
            } else {
                guard let value = record.value,
                    var reader = RecordReader(
                        value, what: "a message", path: path, line: record.line, label: record.label,
                        problems: &problems)
                else { continue }
                fields = Self.fields(&reader, protocol: storeProtocol)
                recordProblems = reader.problems
            }
            let (id, sequence) = (fields.id, fields.sequence)
            func problem(_ message: String) {
                recordProblems.append(StoreProblem(path: path, line: record.line, record.label + message))
            }
            if let sequence {
                if let earlier = seenSequences[sequence] {
                    problem("sequence \(sequence) appears twice\(alsoOnLine(earlier)); keep one of the two records")
                } else if let range, !range.contains(sequence) {
                    problem(
                        "sequence \(sequence) does not belong in this file, which holds \(range); it belongs in \(SegmentRange(containing: sequence, size: range.last - range.first + 1).fileName)"
                    )
                } else if let previous, sequence < previous {
                    problem(
                        "sequence \(sequence) comes after \(previous); records must be in ascending order of sequence")
                }
                if seenSequences[sequence] == nil && range?.contains(sequence) != false {
                    seenSequences[sequence] = record.line
                    previous = max(previous ?? sequence, sequence)
                }
            }
            if let id {
                if let earlier = seenIDs[id] {
                    problem(
                        "client message ID \(id) appears twice\(alsoOnLine(earlier)); a message is stored once, keep one of the two records"
                    )
                }
                seenIDs[id] = seenIDs[id] ?? record.line
            }
            if let eventID = fields.eventID {
                if let earlier = seenEvents[eventID] {
                    problem(
                        "event ID \(eventID) appears twice\(alsoOnLine(earlier)); an event is stored once, keep one of the two records"
                    )
                }
                seenEvents[eventID] = seenEvents[eventID] ?? record.line
            }
            problems.append(contentsOf: recordProblems)
            guard recordProblems.isEmpty, let message = fields.message else { continue }
            found.append((message, record.line))
            if reportLayout, record.fast == nil, let content = record.content {
                var canonical = JSONWriter()
                writeRecord(message, into: &canonical)
                if !canonical.bytes.elementsEqual(bytes[content]) {
                    problems.append(
                        StoreProblem(
                            path: path, line: record.line,
                            "the record is not in canonical form (keys sorted, no spaces, minimal escapes); readers cope, but devices will not hold identical bytes",
                            severity: .warning))
                }
            }
        }
        // Markers left by a merge git could not finish explain every error they caused.
        problems = GitConflictMarkers.explain(problems, bytes: bytes, path: path)
        // Records come in order in a sound file; sort only when they do not.
        if zip(found, found.dropFirst()).contains(where: { $0.message.sequence > $1.message.sequence }) {
            found.sort { $0.message.sequence < $1.message.sequence }
        }
        return Decoded(messages: found.map(\.message), lines: found.map(\.line), problems: problems)
    }

    /// What a record's checks across records need of it, read even when other fields are bad.
    struct Fields {
        var id: ClientMessageID?
        var sequence: Int?
        var eventID: EventID?
        /// The whole record, nil when any field or rule is broken (each with a problem).
        var message: Message?
    }

    /// A message record's fields, each nil (with a problem in `reader`) when missing or invalid,
    /// as a store of `storeProtocol` holds them; unknown keys are problems too.
    static func fields(_ reader: inout RecordReader, protocol storeProtocol: StoreProtocol) -> Fields {
        let id = reader.clientMessageID("clientMessageId")
        switch storeProtocol {
        case .wire:
            for key in Message.matrixRecordKeys where reader.has(key) {
                reader.problem(
                    "\"\(key)\" is a field of a Matrix store's records, and this store speaks wire v1 (its chatdir.json names no \"protocol\"); remove the field, or restore the file from git or another device"
                )
            }
            let (sender, sentAt, sequence, text) = (
                reader.userID("senderId"), reader.timestamp("sentAt"), reader.integer("sequence", atLeast: 1),
                reader.messageText("text")
            )
            reader.rejectUnknownKeys(Message.wireRecordKeys, reported: Message.matrixRecordKeys)
            guard reader.problems.isEmpty, let id, let sender, let sentAt, let sequence, let text else {
                return Fields(id: id, sequence: sequence)
            }
            return Fields(
                id: id, sequence: sequence,
                message: Message(sequence: sequence, clientMessageID: id, senderID: sender, text: text, sentAt: sentAt))
        case .matrix:
            let (eventID, kind, redacted, replaces) = (
                reader.eventID("eventId"), reader.messageKind("kind"), reader.trueFlag("redacted"),
                reader.eventID("replaces", required: false)
            )
            let (sender, sentAt, sequence, text) = (
                reader.userID("senderId"), reader.timestamp("sentAt"), reader.integer("sequence", atLeast: 1),
                reader.matrixText("text")
            )
            reader.rejectUnknownKeys(messageKeys)
            if let id, let eventID, let text {
                for problem in matrixRuleProblems(
                    clientMessageID: id, eventID: eventID, kind: kind, redacted: redacted, replaces: replaces,
                    text: text)
                {
                    reader.problem(problem)
                }
            }
            guard reader.problems.isEmpty, let id, let eventID, let sender, let sentAt, let sequence, let text else {
                return Fields(id: id, sequence: sequence, eventID: eventID)
            }
            return Fields(
                id: id, sequence: sequence, eventID: eventID,
                message: Message(
                    sequence: sequence, clientMessageID: id, senderID: sender, text: text, sentAt: sentAt,
                    eventID: eventID, kind: kind, redacted: redacted, replaces: replaces))
        }
    }

    /// The newest records of a segment, read from the end of the file: the records a page shows.
    public struct Tail: Sendable, Hashable {
        /// Ascending by sequence.
        public var messages: [Message]
        /// Whether the file holds records before the ones read (below ``messages``).
        public var hasEarlier: Bool
    }

    /// Reads the last records of a segment in the canonical layout, from its end, until `count`
    /// of them have a sequence below `below` (all count when nil), a record's sequence is at or
    /// under `above` (that record is checked but not kept), or the file's first record is read;
    /// records at or above `below` are checked but left out. Only those lines are decoded.
    ///
    /// Nil when the file is not in the one-record-per-line layout (no "[" and "]" lines, no final
    /// newline, a misplaced comma, a blank line, conflict markers) or when a record read is
    /// unsound (a bad field, a sequence outside `range` or out of order, an unknown key):
    /// ``decode(_:path:range:reportLayout:)`` of the whole file then reads it or says what is
    /// wrong, with the line. A record line the canonical reader refuses (an escape, another key
    /// order) is parsed and checked as `decode` does. Records the page does not reach are not
    /// looked at; checking a whole file is `chatdir check`'s job.
    public static func decodeTail(
        _ bytes: [UInt8], range: SegmentRange?, count: Int, below: Int? = nil, above: Int? = nil,
        protocol storeProtocol: StoreProtocol = .wire
    ) -> Tail? {
        let size = bytes.count
        // "[" LF, then records, then LF "]" LF; "[\n]\n" when empty.
        guard size >= 4, bytes[0] == UInt8(ascii: "["), bytes[1] == 0x0A,
            bytes[size - 3] == 0x0A, bytes[size - 2] == UInt8(ascii: "]"), bytes[size - 1] == 0x0A
        else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> Tail? in
            var messages: [Message] = []
            messages.reserveCapacity(min(max(count, 0), 256))
            // The LF ending the line being read; 1 (the LF after "[") once the first record is read.
            var lineEnd = size - 3
            var newer: Int?
            while lineEnd > 1, messages.count < count {
                var start = lineEnd
                if let base = buffer.baseAddress {
                    while start >= 8, !ByteScan.has(0x0A, in: ByteScan.word(base + start - 8)) { start -= 8 }
                }
                while buffer[start - 1] != 0x0A { start -= 1 } // stops at 2: bytes[1] is a LF
                let hasComma = start < lineEnd && buffer[lineEnd - 1] == UInt8(ascii: ",")
                guard hasComma == (newer != nil) else { return nil }
                let content = start..<(hasComma ? lineEnd - 1 : lineEnd)
                guard !content.isEmpty, let message = record(bytes, buffer, content, storeProtocol) else {
                    return nil
                }
                if let range, !range.contains(message.sequence) { return nil }
                if let newer, message.sequence >= newer { return nil }
                if let above, message.sequence <= above { break }
                newer = message.sequence
                if below.map({ message.sequence < $0 }) ?? true { messages.append(message) }
                lineEnd = start - 1
            }
            messages.reverse()
            return Tail(messages: messages, hasEarlier: lineEnd > 1)
        }
    }

    /// One record line: the canonical reader, else the JSON parser and the same field checks as
    /// ``decode(_:path:range:reportLayout:)`` (a text with an escape, say). Nil when unsound.
    private static func record(
        _ bytes: [UInt8], _ buffer: UnsafeBufferPointer<UInt8>, _ content: Range<Int>, _ storeProtocol: StoreProtocol
    ) -> Message? {
        var cursor = ByteCursor(bytes: buffer, index: content.lowerBound, end: content.upperBound)
        if let message = cursor.message(storeProtocol) { return message }
        var ignored: [StoreProblem] = []
        guard let value = try? JSONParser.parse(bytes, in: content),
            var reader = RecordReader(value, what: "a message", path: "", line: nil, problems: &ignored)
        else { return nil }
        return fields(&reader, protocol: storeProtocol).message
    }

    /// Reads a record laid out exactly as ``writeRecord(_:into:)`` writes it, with no escape in
    /// any string, without building a JSON tree: the common case, several times faster than
    /// parsing. Nil for anything else (another key order, spaces, an escape, an invalid value),
    /// which then takes the general path and gets its precise error message.
    static func canonicalRecord(_ bytes: [UInt8], _ content: Range<Int>, protocol storeProtocol: StoreProtocol = .wire)
        -> Message?
    {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = ByteCursor(bytes: buffer, index: content.lowerBound, end: content.upperBound)
            return cursor.message(storeProtocol)
        }
    }

    private static func alsoOnLine(_ line: Int??) -> String {
        if let line = line ?? nil { return " (also on line \(line))" }
        return ""
    }
}

/// Reads one canonical record for ``SegmentFile/canonicalRecord(_:_:protocol:)``: the hot loop
/// allocates nothing but the message's own strings. A wire v1 record is read by the same steps as
/// before Matrix stores existed; a Matrix store's adds its fields after the client ID.
extension ByteCursor {
    fileprivate mutating func message(_ storeProtocol: StoreProtocol) -> Message? {
        guard literal("{\"clientMessageId\":\""), let idBytes = plainString() else { return nil }
        var matrix: (eventID: EventID, kind: MessageKind?, redacted: Bool, replaces: EventID?)?
        if storeProtocol == .matrix {
            guard literal(",\"eventId\":\""), let eventID = eventID() else { return nil }
            var kind: MessageKind?
            if literal(",\"kind\":\"") {
                guard let bytes = plainString(), let text = ByteCursor.string(bytes), let read = try? MessageKind(text)
                else { return nil }
                kind = read
            }
            let redacted = literal(",\"redacted\":true")
            var replaces: EventID?
            if literal(",\"replaces\":\"") {
                guard let read = self.eventID() else { return nil }
                replaces = read
            }
            matrix = (eventID, kind, redacted, replaces)
        }
        guard literal(",\"senderId\":\""), let senderBytes = plainString(),
            literal(",\"sentAt\":\""), let sentAtBytes = plainString(),
            literal(",\"sequence\":"), let sequence = number(), sequence >= 1,
            literal(",\"text\":\""), let textBytes = plainString(), literal("}"), index == end,
            let id = ClientMessageID(utf8: idBytes),
            let sender = UserID(utf8: senderBytes) ?? (matrix == nil ? nil : ByteCursor.matrixUserID(senderBytes)),
            sentAtBytes.count <= Message.maxSentAtBytes, let sentAt = ByteCursor.string(sentAtBytes),
            let text = ByteCursor.string(textBytes)
        else { return nil }
        guard let matrix else {
            // A text of at most the limit in bytes is within it in characters: count graphemes
            // only for a longer one.
            if textBytes.isEmpty
                || (textBytes.count > DomainError.maxTextCharacters && (try? validateMessageText(text)) == nil)
            {
                return nil
            }
            return Message(sequence: sequence, clientMessageID: id, senderID: sender, text: text, sentAt: sentAt)
        }
        guard textBytes.count <= DomainError.maxTextBytes,
            SegmentFile.matrixRuleProblems(
                clientMessageID: id, eventID: matrix.eventID, kind: matrix.kind, redacted: matrix.redacted,
                replaces: matrix.replaces, text: text
            ).isEmpty
        else { return nil }
        return Message(
            sequence: sequence, clientMessageID: id, senderID: sender, text: text, sentAt: sentAt,
            eventID: matrix.eventID, kind: matrix.kind, redacted: matrix.redacted, replaces: matrix.replaces)
    }

    /// An event ID's string, after its opening quote.
    private mutating func eventID() -> EventID? {
        guard let bytes = plainString() else { return nil }
        return try? EventID(String(decoding: bytes, as: UTF8.self))
    }

    /// A sender that is not a name: a Matrix user ID, checked by its grammar.
    private static func matrixUserID(_ bytes: UnsafeBufferPointer<UInt8>) -> UserID? {
        guard let text = string(bytes) else { return nil }
        return try? UserID(text)
    }
}
