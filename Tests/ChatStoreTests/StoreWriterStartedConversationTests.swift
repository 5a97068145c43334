import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// `StoreWriter.finishStart`: a conversation started here in a Matrix store becomes its room's
/// folder with its queued messages, whether or not a listing made that folder first, and a run
/// cut short after its first step is finished by the next.
@Suite struct StoreWriterStartedConversationTests {
    static let me = try! UserID("@alice:example.org")
    static let bob = try! UserID("@bob:example.org")
    static let lunch = try! ConversationID("lunch")
    static let roomID = "!OGEhHVWSdvArJzumhm:example.org"
    static let room = ConversationID.matrixRoom(roomID)
    static let roomInfo = ConversationInfo(title: "Lunch", members: [me], roomID: roomID)

    /// A Matrix store with `lunch` queued and two messages waiting behind it.
    static func queued(_ directory: TemporaryDirectory) throws -> (Store, StoreWriter, [ClientMessageID]) {
        let store = try Store.create(at: directory.path + "/store", manifest: Manifest(userID: me, segmentSize: 10))
        try store.startConversation(lunch, title: "Lunch", members: [bob])
        let outbox = Outbox(try store.existingConversation(lunch))
        let ids = [try outbox.enqueue("noon?").clientMessageID, try outbox.enqueue("the usual place").clientMessageID]
        return (store, try StoreWriter(store: store), ids)
    }

    /// What the room's folder must hold afterwards, and the started folder gone; `hinted`: the
    /// move was this run's, so `.started` says where `lunch` went.
    static func expectMoved(
        _ store: Store, _ ids: [ClientMessageID], hinted: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(!store.conversation(lunch).exists, sourceLocation: sourceLocation)
        let moved = store.conversation(room)
        #expect(try moved.info() == roomInfo, sourceLocation: sourceLocation)
        #expect(try moved.queuedCreation() == nil, sourceLocation: sourceLocation)
        #expect(try moved.outbox().map(\.clientMessageID) == ids, sourceLocation: sourceLocation)
        let left = try FileManager.default.contentsOfDirectory(atPath: store.root + "/conversations")
        #expect(left == [room.rawValue], "nothing hidden is left: \(left)", sourceLocation: sourceLocation)
        #expect(StoreChecker.check(root: store.root).problems.isEmpty, sourceLocation: sourceLocation)
        // The queued ID, given to a command, names the folder it went to.
        guard hinted else { return }
        do {
            _ = try store.existingConversation(lunch)
            Issue.record("lunch is still a conversation", sourceLocation: sourceLocation)
        } catch {
            guard case .startedAs(lunch, let folder) = error else { throw error }
            #expect(folder == room, sourceLocation: sourceLocation)
            #expect(error.description.contains("moved it, with its queued messages, to \(room.rawValue)"))
        }
    }

    @Test("with no room folder yet, the folder is renamed whole, its outbox in queue order, create.json gone")
    func renamed() throws {
        let directory = try TemporaryDirectory()
        let (store, writer, ids) = try Self.queued(directory)
        try writer.finishStart(of: Self.lunch, as: Self.room, info: Self.roomInfo)
        try Self.expectMoved(store, ids)
    }

    @Test("when a listing made the room's folder first, the outbox files move into it and the started folder goes")
    func merged() throws {
        let directory = try TemporaryDirectory()
        let (store, writer, ids) = try Self.queued(directory)
        try writer.saveInfo(Self.roomInfo, for: Self.room)
        try writer.finishStart(of: Self.lunch, as: Self.room, info: Self.roomInfo)
        try Self.expectMoved(store, ids)
    }

    @Test(
        "a run killed after the room was written down (conversation.json names it, create.json still there) is one check says is sound, and finishing it again completes the move"
    )
    func resumedAfterTheFirstStep() throws {
        let directory = try TemporaryDirectory()
        let (store, writer, ids) = try Self.queued(directory)
        // Step 1 alone, as a run killed right after it leaves the store.
        try writer.saveInfo(Self.roomInfo, for: Self.lunch)
        #expect(try store.conversation(Self.lunch).queuedCreation() != nil)
        #expect(StoreChecker.check(root: store.root).problems.isEmpty)
        try writer.finishStart(of: Self.lunch, as: Self.room, info: Self.roomInfo)
        try Self.expectMoved(store, ids)
    }

    @Test("a folder renamed to the room's with create.json still in it needs only that file removed")
    func resumedAfterTheRename() throws {
        let directory = try TemporaryDirectory()
        let (store, writer, ids) = try Self.queued(directory)
        try writer.saveInfo(Self.roomInfo, for: Self.lunch)
        try FileManager.default.moveItem(
            atPath: store.conversation(Self.lunch).directory, toPath: store.conversation(Self.room).directory)
        try writer.finishStart(of: Self.room, as: Self.room, info: Self.roomInfo)
        // Killed between the rename and the hint: the move stands, only the hint is lost.
        try Self.expectMoved(store, ids, hinted: false)
    }
}
