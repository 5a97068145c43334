import ChatDomain

/// One value of an answer with its ``MatrixPath``: the decoders' only way to read JSON, so every
/// refusal names its field. Unknown keys are never looked at (Matrix is extensible: servers and
/// other clients add keys freely); a known key of the wrong type is refused, and `null` for an
/// optional key reads as absent.
struct MatrixField {
    let value: JSONValue
    let path: MatrixPath

    init(_ value: JSONValue, at path: MatrixPath = .root) {
        self.value = value
        self.path = path
    }

    /// A refusal of this value.
    func refuse(_ reason: String) -> MatrixDecodingError {
        .invalid(path: path.description, reason: reason)
    }

    private func notA(_ expected: String) -> MatrixDecodingError {
        refuse("not \(expected) (found \(value.typeDescription))")
    }

    // MARK: - Members

    /// The member `key` of this object; refused when missing or null.
    func required(_ key: String) throws(MatrixDecodingError) -> MatrixField {
        guard case .object = value else { throw notA("an object") }
        guard let member = value[key], member != .null else {
            throw .invalid(path: MatrixPath.key(path, key).description, reason: "missing")
        }
        return MatrixField(member, at: .key(path, key))
    }

    /// The member `key` of this object, nil when missing or null.
    func optional(_ key: String) throws(MatrixDecodingError) -> MatrixField? {
        guard case .object = value else { throw notA("an object") }
        guard let member = value[key], member != .null else { return nil }
        return MatrixField(member, at: .key(path, key))
    }

    /// The member `key` read by `read`; refused when missing.
    func required<T>(_ key: String, _ read: (MatrixField) throws(MatrixDecodingError) -> T) throws(MatrixDecodingError)
        -> T
    {
        try read(try required(key))
    }

    /// The member `key` read by `read`, nil when missing or null.
    func optional<T>(_ key: String, _ read: (MatrixField) throws(MatrixDecodingError) -> T) throws(MatrixDecodingError)
        -> T?
    {
        guard let member = try optional(key) else { return nil }
        return try read(member)
    }

    // MARK: - Containers

    /// This value, refused unless it is an object.
    func object() throws(MatrixDecodingError) -> MatrixField {
        guard case .object = value else { throw notA("an object") }
        return self
    }

    /// Whether this object has no members (a redacted event's content).
    var isEmptyObject: Bool {
        if case .object(let members) = value { return members.isEmpty }
        return false
    }

    /// The elements of this array, at most `max` of them.
    func elements(max: Int) throws(MatrixDecodingError) -> [MatrixField] {
        guard case .array(let items) = value else { throw notA("an array") }
        guard items.count <= max else { throw refuse("\(items.count) entries, more than \(max)") }
        return items.enumerated().map { MatrixField($0.element, at: .index(path, $0.offset)) }
    }

    /// The elements of this array read by `read`, at most `max` of them.
    func array<T>(max: Int, _ read: (MatrixField) throws(MatrixDecodingError) -> T) throws(MatrixDecodingError) -> [T] {
        var result: [T] = []
        for element in try elements(max: max) { result.append(try read(element)) }
        return result
    }

    /// The members of this object in the order written, at most `max` of them.
    func members(max: Int) throws(MatrixDecodingError) -> [(key: String, value: MatrixField)] {
        guard case .object(let members) = value else { throw notA("an object") }
        guard members.count <= max else { throw refuse("\(members.count) entries, more than \(max)") }
        return members.map { (key: $0.key, value: MatrixField($0.value, at: .key(path, $0.key))) }
    }

    // MARK: - Scalars

    /// This string, at most `maxBytes` bytes of UTF-8.
    func string(maxBytes: Int = MatrixLimits.textBytes) throws(MatrixDecodingError) -> String {
        guard case .string(let text) = value else { throw notA("a string") }
        let count = text.utf8.count
        guard count <= maxBytes else { throw refuse("\(count) bytes, more than \(maxBytes)") }
        return text
    }

    /// This integer, within `range` (JSON numbers with a fraction or exponent are refused).
    func integer(in range: ClosedRange<Int> = 0...MatrixLimits.maxInteger) throws(MatrixDecodingError) -> Int {
        guard case .integer(let number) = value else { throw notA("a whole number") }
        guard range.contains(number) else {
            throw refuse("\(number) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }

    func bool() throws(MatrixDecodingError) -> Bool {
        guard case .bool(let flag) = value else { throw notA("true or false") }
        return flag
    }

    /// A type name (event type, msgtype, errcode, receipt type): non-empty, short, no control
    /// character (``MatrixText/isControl(_:)``), since an errcode goes into error messages.
    func typeName() throws(MatrixDecodingError) -> String {
        let text = try string(maxBytes: MatrixLimits.typeBytes)
        guard !text.isEmpty, !text.unicodeScalars.contains(where: MatrixText.isControl) else {
            throw refuse("not a type name: \(MatrixText.quoted(text))")
        }
        return text
    }

    /// A token the client sends back (`next_batch`, pagination, access and refresh tokens):
    /// printable ASCII without spaces, so it can go into a header or a query unchanged in meaning.
    func token() throws(MatrixDecodingError) -> String {
        let text = try string(maxBytes: MatrixLimits.tokenBytes)
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw refuse("not a token (printable ASCII without spaces)")
        }
        return text
    }

    /// An identifier read by `make` (a ``MatrixUserID`` initializer, say), its grammar's refusal
    /// reported at this path.
    func identifier<T>(_ make: (String) throws(MatrixIdentifierError) -> T) throws(MatrixDecodingError) -> T {
        guard case .string(let text) = value else { throw notA("a string") }
        do { return try make(text) } catch { throw refuse(error.description) }
    }

    func userID() throws(MatrixDecodingError) -> MatrixUserID { try identifier(MatrixUserID.init) }
    func roomID() throws(MatrixDecodingError) -> MatrixRoomID { try identifier(MatrixRoomID.init) }
    func eventID() throws(MatrixDecodingError) -> MatrixEventID { try identifier(MatrixEventID.init) }
}
