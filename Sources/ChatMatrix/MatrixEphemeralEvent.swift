/// An ephemeral event of a joined room in `/sync`: who is typing, who read what. Other types
/// are kept by name only.
public enum MatrixEphemeralEvent: Sendable, Hashable {
    /// `m.typing`: everyone typing in the room now, the user included.
    case typing([MatrixUserID])
    /// `m.receipt`: the receipts that changed.
    case receipts([MatrixReceipt])
    case other(type: String)

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        let type = try field.required("type").typeName()
        let content = try field.required("content").object()
        switch type {
        case "m.typing":
            self = .typing(
                try content.required("user_ids").array(max: MatrixLimits.listEntries) {
                    item throws(MatrixDecodingError) in try item.userID()
                })
        case "m.receipt":
            var receipts: [MatrixReceipt] = []
            for (event, types) in try content.members(max: MatrixLimits.listEntries) {
                let eventID: MatrixEventID
                do { eventID = try MatrixEventID(event) } catch { throw types.refuse(error.description) }
                for (receiptType, users) in try types.members(max: MatrixLimits.listEntries) {
                    let typeName = try MatrixField(.string(receiptType), at: users.path).typeName()
                    for (user, receipt) in try users.members(max: MatrixLimits.listEntries) {
                        let userID: MatrixUserID
                        do { userID = try MatrixUserID(user) } catch { throw receipt.refuse(error.description) }
                        let receipt = try receipt.object()
                        receipts.append(
                            MatrixReceipt(
                                eventID: eventID, type: typeName, user: userID,
                                timestamp: try receipt.optional("ts")?.integer(),
                                threadID: try receipt.optional("thread_id")?.string(
                                    maxBytes: MatrixLimits.identifierBytes)))
                        if receipts.count > MatrixLimits.listEntries {
                            throw content.refuse("more than \(MatrixLimits.listEntries) receipts")
                        }
                    }
                }
            }
            self = .receipts(receipts)
        default:
            self = .other(type: type)
        }
    }
}

/// One user's receipt on one event: `m.read` (others see it), `m.read.private` (only the user).
public struct MatrixReceipt: Sendable, Hashable {
    public var eventID: MatrixEventID
    public var type: String
    public var user: MatrixUserID
    /// Milliseconds since 1970, when the server gives it.
    public var timestamp: Int?
    /// `main` or a thread's root event ID for a threaded receipt; nil for an unthreaded one.
    public var threadID: String?

    public init(
        eventID: MatrixEventID, type: String, user: MatrixUserID, timestamp: Int? = nil, threadID: String? = nil
    ) {
        self.eventID = eventID
        self.type = type
        self.user = user
        self.timestamp = timestamp
        self.threadID = threadID
    }
}
