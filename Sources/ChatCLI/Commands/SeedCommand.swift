import ChatDomain
import ChatStore

/// `chatdir seed`: writes a deterministic fixture store.
enum SeedCommand: Command {
    static let spec = CommandSpec(
        name: "seed",
        summary: "Generate a deterministic fixture store (10 or 1,000,000 messages).",
        usage: ["DIR [--conversations N] [--messages N] [--members N] [--pending N] [--failed N] [--seed N]"],
        options: [
            .init(name: "--user", value: "NAME", help: "whose store it is (default alice)"),
            .init(name: "--conversations", value: "N", help: "conversations c1…cN (default 3)"),
            .init(name: "--messages", value: "N", help: "messages per conversation (default 50)"),
            .init(
                name: "--members", value: "N",
                help: "members per conversation, the user included; 2 = one-to-one (default 2)"),
            .init(name: "--pending", value: "N", help: "pending outbox messages per conversation (default 0)"),
            .init(name: "--failed", value: "N", help: "failed outbox messages per conversation (default 0)"),
            .init(name: "--seed", value: "N", help: "random seed; the same seed gives the same bytes (default 42)"),
            .init(name: "--segment-size", value: "N", help: "messages per segment file (default 100)"),
            .init(name: "--quiet", value: nil, help: "no progress line on a terminal (there is none in a pipe)"),
        ],
        discussion: """
            DIR must not exist or be empty. Messages follow the benchmark's generator: member s % count
            sends sequence s, sentAt counts seconds from 2023-11-14T22:13:20Z.

            Examples:
              chatdir seed /tmp/fixture --conversations 2 --members 5 --pending 1 --failed 1
              chatdir seed /tmp/big --conversations 1 --messages 1000000
            """,
        takesStore: false
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let path = try arguments.positional(0, "DIR (where to write the fixture)")
        let userText = arguments.value("--user") ?? "alice"
        var generator: FixtureGenerator
        do { generator = FixtureGenerator(userID: try UserID(userText)) } catch {
            throw context.usage("--user: \(error)")
        }
        generator.conversations = try arguments.integer("--conversations", in: 0...100_000) ?? generator.conversations
        generator.messagesPerConversation =
            try arguments.integer("--messages", in: 0...100_000_000) ?? generator.messagesPerConversation
        generator.members = try arguments.integer("--members", in: 1...1000) ?? generator.members
        generator.pendingPerConversation = try arguments.integer("--pending", in: 0...100_000) ?? 0
        generator.failedPerConversation = try arguments.integer("--failed", in: 0...100_000) ?? 0
        generator.segmentSize =
            try arguments.integer("--segment-size", in: 1...Manifest.maxSegmentSize) ?? generator.segmentSize
        if let seed = arguments.value("--seed") {
            guard let value = UInt64(seed) else {
                throw context.usage(
                    "--seed must be a whole number from 0 to \(UInt64.max), not \(seed.debugDescription)")
            }
            generator.seed = value
        }
        let total = generator.conversations * generator.messagesPerConversation
        let progress = ProgressLine(output: context.output, quiet: arguments.flag("--quiet"))
        do {
            defer { progress.finish() }
            try generator.generate(at: path) { written in
                progress.update(.init(label: "seeding", done: written, total: total, unit: "messages"))
            }
        }
        context.output.print(path)
        return 0
    }
}
