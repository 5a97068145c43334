// observer-latency: measures how long a committed write takes to reach the live view.
//
// Seeds a store with one conversation of N messages (default 10,000), follows it the way
// `chatdir view c1 --follow --limit N` does (StoreObserver → view model → frame), then renames
// files into `outbox/` and `messages/` one at a time and records, for each, the time from just
// before the rename(2) to the end of the frame that shows it. Prints p50/p90/p99/max.
//
//   CHATDIR_RELEASE=1 swift build -c release --product observer-latency
//   .build/release/observer-latency [--messages 10000] [--samples 500]
import ChatCLI
import ChatDomain
import ChatStore
import ChatSystem

#if canImport(Glibc)
    import Glibc
#endif

func option(_ name: String, default value: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
        let number = Int(arguments[index + 1])
    else { return value }
    return number
}

let messageCount = option("--messages", default: 10_000)
let samples = option("--samples", default: 500)
let root = "/tmp/observer-latency-\(Sys.currentProcessID)"
defer { _ = system("rm -rf '\(root)'") }

let alice = try UserID("alice")
let bob = try UserID("bob")
let c1 = try ConversationID("c1")
var generator = FixtureGenerator(userID: alice)
generator.conversations = 1
generator.messagesPerConversation = messageCount
try generator.generate(at: root) { _ in }
let store = try Store.open(at: root)
let conversation = store.conversation(c1)

/// What the consumer saw last: how many rows the frame showed and when it finished drawing.
let seen = Lock<(rows: Int, at: UInt64)>((0, 0))
let states = try StoreObserver(store: store).states(in: c1, limit: messageCount)
let devNull = open("/dev/null", O_WRONLY)
let follower = Task.detached {
    let model = ConversationViewModel(me: alice)
    for await state in states {
        let view = model.viewState(state, visibleRows: 50)
        let frame = FollowFrame.lines(view, conversation: c1, rows: 50, columns: 120).joined(separator: "\r\n")
        _ = frame.withCString { write(devNull, $0, strlen($0)) }
        let now = Clock.monotonicNanoseconds()
        seen.withLock { $0 = (state.rows.count, now) }
    }
}

func waitForRows(_ count: Int) -> UInt64 {
    while true {
        let current = seen.withLock { $0 }
        if current.rows >= count { return current.at }
        SystemThread.sleep(microseconds: 20)
    }
}

/// Writes `bytes` to a temp file in `directory` and fsyncs it: everything but the rename.
func prepare(_ bytes: [UInt8], in directory: String) throws -> String {
    let temp = directory + "/.latency.\(Sys.currentProcessID).tmp"
    let fd = try FileDescriptor.open(temp, [.writeOnly, .create, .truncate])
    try fd.writeAll(bytes, path: temp)
    try fd.fsync(path: temp)
    return temp
}

_ = waitForRows(messageCount)
var rows = seen.withLock { $0.rows }
var outboxLatencies: [Double] = []
var messageLatencies: [Double] = []
var nextSequence = messageCount + 1
var segment: [Message] = []
try DurableFile.makeDirectories(conversation.outboxDirectory)
for index in 0..<(2 * samples) {
    let start: UInt64
    if index % 2 == 0 {
        let id = ClientMessageID.random()
        let ordinal = Clock.nanosecondsSince1970()
        let entry = OutboxEntry(
            ordinal: ordinal, clientMessageID: id, text: "latency \(index)",
            createdAt: Clock.iso8601(nanoseconds: ordinal))
        let temp = try prepare(OutboxFile.encode(entry), in: conversation.outboxDirectory)
        start = Clock.monotonicNanoseconds()
        try Sys.rename(temp, conversation.outboxDirectory + "/" + OutboxFile.fileName(ordinal: ordinal, id: id))
    } else {
        let range = SegmentRange(containing: nextSequence, size: store.manifest.segmentSize)
        if segment.first.map({ !range.contains($0.sequence) }) ?? false { segment = [] }
        segment.append(
            Message(
                sequence: nextSequence, clientMessageID: .random(), senderID: bob, text: "latency \(index)",
                sentAt: "2026-11-29T10:00:00.000Z"))
        nextSequence += 1
        let temp = try prepare(SegmentFile.encode(segment), in: conversation.messagesDirectory)
        start = Clock.monotonicNanoseconds()
        try Sys.rename(temp, conversation.messagesDirectory + "/" + range.fileName)
    }
    rows += 1
    let end = waitForRows(rows)
    let milliseconds = Double(end - start) / 1_000_000
    if index % 2 == 0 { outboxLatencies.append(milliseconds) } else { messageLatencies.append(milliseconds) }
}
follower.cancel()

func report(_ name: String, _ values: [Double]) {
    let sorted = values.sorted()
    func percentile(_ p: Double) -> String {
        let value = sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
        return String(Int((value * 1000).rounded())) + " µs"
    }
    print(
        "\(name): n=\(sorted.count) p50=\(percentile(0.5)) p90=\(percentile(0.9)) p99=\(percentile(0.99)) max=\(percentile(1.0))"
    )
}
print("observer-latency: \(messageCount) messages followed, rename(2) → frame drawn")
report("rename into outbox/  ", outboxLatencies)
report("rename into messages/", messageLatencies)
report("all                  ", outboxLatencies + messageLatencies)
