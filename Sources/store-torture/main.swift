// A writer that never stops, for the crash-safety test: it rewrites segments, positions and
// outbox files through the store's own writers, and prints one line per write only after that
// write is durable ("seq N", "outbox ID", "read N"). The test kills it with SIGKILL at random
// moments and checks that every file parses and every acknowledged write is there.
//
//   store-torture STORE
import ChatDomain
import ChatStore
import ChatSystem

#if canImport(Glibc)
    import Glibc
#endif

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    let bytes = Array(("store-torture: " + message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(70)
}

guard CommandLine.arguments.count == 2 else { fail("usage: store-torture STORE") }
let root = CommandLine.arguments[1]
do {
    let alice = try UserID("alice")
    let bob = try UserID("bob")
    let id = try ConversationID("c1")
    let store =
        Sys.kind(of: root) == nil
        ? try Store.create(at: root, manifest: Manifest(userID: alice, segmentSize: 10))
        : try Store.open(at: root)
    let writer = try StoreWriter(store: store)
    try writer.saveInfo(ConversationInfo(title: "Torture", members: [alice, bob]), for: id)
    let conversation = store.conversation(id)
    let outbox = Outbox(conversation)
    var next = (try conversation.newestMessages(limit: 1).messages.last?.sequence ?? 0) + 1
    while true {
        let message = Message(
            sequence: next, clientMessageID: .random(), senderID: next % 2 == 0 ? alice : bob,
            text: "message \(next) " + String(repeating: "x", count: next % 50),
            sentAt: Clock.iso8601(nanoseconds: Clock.nanosecondsSince1970()))
        try writer.save([message], in: id)
        say("seq \(next)")
        try writer.mergePositions(Positions([bob: MemberPosition(deliveredUpTo: next, readUpTo: next - 1)]), in: id)
        say("delivered \(next)")
        let entry = try outbox.enqueue("queued \(next)")
        say("outbox \(entry.clientMessageID)")
        if next % 3 == 0 {
            try outbox.wantRead(upTo: next)
            say("read \(next)")
        }
        next += 1
    }
} catch {
    fail("\(error)")
}
