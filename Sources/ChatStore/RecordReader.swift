import ChatDomain

/// Reads the fields of one JSON object from a store file, collecting a ``StoreProblem`` for each
/// missing, mistyped or unknown field instead of stopping at the first.
struct RecordReader {
    let path: String
    let line: Int?
    /// Prefix for messages about a record that is not on a line of its own ("record 3: ").
    let label: String
    private(set) var problems: [StoreProblem] = []
    private let members: [(key: String, value: JSONValue)]

    /// Nil (with a problem recorded) when `value` is not an object.
    init?(
        _ value: JSONValue, what: String, path: String, line: Int?, label: String = "", problems: inout [StoreProblem]
    ) {
        guard case .object(let members) = value else {
            problems.append(
                StoreProblem(
                    path: path, line: line, "\(label)expected \(what) (a JSON object), found \(value.typeDescription)"))
            return nil
        }
        self.path = path
        self.line = line
        self.label = label
        self.members = members
    }

    mutating func problem(_ message: String) {
        problems.append(StoreProblem(path: path, line: line, label + message))
    }

    mutating func value(_ key: String, required: Bool) -> JSONValue? {
        guard let value = members.first(where: { $0.key == key })?.value else {
            if required { problem("the field \"\(key)\" is missing") }
            return nil
        }
        return value
    }

    mutating func string(_ key: String, required: Bool = true) -> String? {
        guard let value = value(key, required: required) else { return nil }
        guard case .string(let text) = value else {
            problem("\"\(key)\" must be a string, found \(value.typeDescription)")
            return nil
        }
        return text
    }

    mutating func integer(_ key: String, atLeast minimum: Int, required: Bool = true) -> Int? {
        guard let value = value(key, required: required) else { return nil }
        guard case .integer(let number) = value else {
            problem("\"\(key)\" must be a whole number, found \(value.typeDescription)")
            return nil
        }
        guard number >= minimum else {
            problem("\"\(key)\" must be at least \(minimum), found \(number)")
            return nil
        }
        return number
    }

    mutating func array(_ key: String) -> [JSONValue]? {
        guard let value = value(key, required: true) else { return nil }
        guard case .array(let values) = value else {
            problem("\"\(key)\" must be an array, found \(value.typeDescription)")
            return nil
        }
        return values
    }

    /// The optional boolean `key`; nil when absent or not a boolean (a problem then).
    mutating func boolean(_ key: String) -> Bool? {
        guard let value = value(key, required: false) else { return nil }
        guard case .bool(let flag) = value else {
            problem("\"\(key)\" must be true or false, found \(value.typeDescription)")
            return nil
        }
        return flag
    }

    mutating func clientMessageID(_ key: String) -> ClientMessageID? {
        guard let text = string(key) else { return nil }
        do { return try ClientMessageID(text) } catch {
            problem("\"\(key)\": \(error)")
            return nil
        }
    }

    mutating func userID(_ key: String) -> UserID? {
        guard let text = string(key) else { return nil }
        do { return try UserID(text) } catch {
            problem("\"\(key)\": \(error)")
            return nil
        }
    }

    /// A server's timestamp, kept as given: at most 64 bytes, as the wire decoder allows, so a
    /// record's size is bounded by its text (``StoreFiles/maxRecordBytes``).
    mutating func timestamp(_ key: String) -> String? {
        guard let text = string(key) else { return nil }
        guard text.utf8.count <= Message.maxSentAtBytes else {
            problem("\"\(key)\" is \(text.utf8.count) bytes long; a timestamp is at most \(Message.maxSentAtBytes)")
            return nil
        }
        return text
    }

    mutating func messageText(_ key: String) -> String? {
        guard let text = string(key) else { return nil }
        do { try validateMessageText(text) } catch {
            problem("\"\(key)\": \(error)")
            return nil
        }
        return text
    }

    /// Whether the object has `key`.
    func has(_ key: String) -> Bool { members.contains { $0.key == key } }

    /// A Matrix event ID (``EventID``).
    mutating func eventID(_ key: String, required: Bool = true) -> EventID? {
        guard let text = string(key, required: required) else { return nil }
        do { return try EventID(text) } catch {
            problem("\"\(key)\": \(error)")
            return nil
        }
    }

    /// A Matrix message's kind (``MessageKind``), when present.
    mutating func messageKind(_ key: String) -> MessageKind? {
        guard let text = string(key, required: false) else { return nil }
        do { return try MessageKind(text) } catch {
            problem("\"\(key)\": \(error)")
            return nil
        }
    }

    /// A flag written only when it is set: absent is false, `true` is true, and anything else
    /// (`false` too, so that one record has one form) is a problem.
    mutating func trueFlag(_ key: String) -> Bool {
        guard let value = value(key, required: false) else { return false }
        guard value == .bool(true) else {
            let found = value == .bool(false) ? "false" : value.typeDescription
            problem("\"\(key)\" is written only as true, found \(found); remove it, or write true")
            return false
        }
        return true
    }

    /// A Matrix store's message text: 0 to ``DomainError/maxTextBytes`` bytes of UTF-8 (an
    /// event's size bounds a Matrix body, not a count of characters; a redacted one is empty).
    mutating func matrixText(_ key: String) -> String? {
        guard let text = string(key) else { return nil }
        let bytes = text.utf8.count
        guard bytes <= DomainError.maxTextBytes else {
            problem("\"\(key)\": \(DomainError.textTooLarge(bytes: bytes))")
            return nil
        }
        return text
    }

    /// Records a problem for each key that is not in `allowed`, but for the keys in `reported`
    /// (their problem is recorded where they are read).
    /// `allowed` is a short list, searched in order (a `Set` here was the first `String`-keyed
    /// hash of every store open, and the first one a process makes scans every conformance).
    mutating func rejectUnknownKeys(_ allowed: [String], reported: [String] = []) {
        for member in members where !allowed.contains(member.key) && !reported.contains(member.key) {
            problem(
                "unknown field \(quoted(member.key)); remove it (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
    }
}

/// Parses a whole small file as one JSON value; a syntax error becomes a problem with its line.
func parseWholeFile(_ bytes: [UInt8], path: String, problems: inout [StoreProblem]) -> JSONValue? {
    if bytes.isEmpty {
        problems.append(
            StoreProblem(
                path: path, line: 1,
                "the file is empty; it should hold a JSON object (restore it from git or another device)"))
        return nil
    }
    do {
        return try JSONParser.parse(bytes)
    } catch {
        // A file git could not merge is one unresolved conflict, not a JSON error.
        if let marker = GitConflictMarkers.firstLine(in: bytes) {
            problems.append(GitConflictMarkers.problem(path: path, line: marker))
            return nil
        }
        let line = LineIndex(bytes).line(atOffset: error.offset)
        problems.append(StoreProblem(path: path, line: line, "not valid JSON: \(error.reason)"))
        return nil
    }
}
