import ChatDomain

/// One account data event (global or per room): a type and its content, kept as JSON since
/// any client may store anything there; chatdir reads its own types (``MatrixAnchor``) from it.
public struct MatrixAccountDataEvent: Sendable, Hashable {
    public var type: String
    /// Always an object.
    public var content: JSONValue

    public init(type: String, content: JSONValue) {
        self.type = type
        self.content = content
    }

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        type = try field.required("type").typeName()
        content = try field.required("content").object().value
    }

    /// The `events` of an `account_data` section.
    static func list(_ field: MatrixField) throws(MatrixDecodingError) -> [MatrixAccountDataEvent] {
        try field.object().optional("events")?.array(max: MatrixLimits.eventsPerPage, MatrixAccountDataEvent.init) ?? []
    }
}
