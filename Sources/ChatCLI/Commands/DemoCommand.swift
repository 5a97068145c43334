import ChatDomain
import ChatServer
import ChatStore
import ChatSync
import ChatSystem

/// `chatdir demo`: the whole product on one machine, step by step, with real output.
enum DemoCommand: Command {
    static let spec = CommandSpec(
        name: "demo",
        summary:
            "Show chatdir end to end: offline send, sync, live delivery, read ticks, faults survived, the chat screen.",
        usage: ["[--keep] [--tls]"],
        options: [
            .init(
                name: "--keep", value: nil,
                help: "keep the demo directory (stores and server data) to explore afterwards"),
            .init(
                name: "--tls", value: nil,
                help: "the same story over https and wss, with a throwaway CA made by the openssl command line"),
        ],
        discussion: """
            Runs in a new temporary directory: the reference server in this process with users alice
            and bob, alice on two devices (phone and laptop) and bob on one. Each step prints the real
            `chatdir view` of a device, and the last one a frame of `chatdir chat` as a terminal would
            show it. Nothing outside the temporary directory is touched; it is removed at the end
            unless --keep is given, and the demo ends with the commands to try next. Takes a few seconds.
            """,
        takesStore: false
    )

    static func run(_ context: Context) throws -> Int32 {
        try context.arguments.expectAtMost(0)
        let demo = try Demo(context: context, tls: context.arguments.flag("--tls"))
        let status = runUntilDone(interruptible: true) { await demo.run() }
        let keep = context.arguments.flag("--keep")
        if !keep { _ = ChildProcess.run(["rm", "-rf", demo.root]) }
        if status == 0 { demo.next(kept: keep) }
        return status
    }
}

/// The demo's script. Every device and the server live under ``root``.
private final class Demo: Sendable {
    let root: String
    let output: Output
    let environment: Environment
    let ab: ConversationID
    let alice: UserID
    let bob: UserID
    let phone: Store
    let laptop: Store
    let bobStore: Store
    let port: Int
    /// The throwaway CA's certificate when the demo runs over TLS (`--tls`).
    let caFile: String?

    init(context: Context, tls: Bool) throws {
        output = context.output
        environment = context.environment
        root = try Sys.makeTemporaryDirectory(prefix: "chatdir-demo-")
        ab = try ConversationID("ab")
        alice = try UserID("alice")
        bob = try UserID("bob")
        try DataDirectory.create(
            at: root + "/server", users: UserTokens(["alice-token": alice, "bob-token": bob]),
            conversations: [ab: ConversationInfo(title: "Alice and Bob", members: [alice, bob])])
        // Find a free port once, so every restart of the server listens at the same address.
        let probe = try ChatServer(configuration: ServerConfiguration(dataDirectory: root + "/server", port: 0))
        try probe.start()
        port = probe.port
        probe.stop()
        caFile = tls ? try Self.makeCertificates(in: root) : nil
        let server = ServerAddress(host: "127.0.0.1", port: UInt16(port), scheme: tls ? .https : .http)
        phone = try Store.create(at: root + "/alice-phone", manifest: Manifest(userID: alice, server: server))
        laptop = try Store.create(at: root + "/alice-laptop", manifest: Manifest(userID: alice, server: server))
        bobStore = try Store.create(at: root + "/bob", manifest: Manifest(userID: bob, server: server))
    }

    var address: ServerAddress {
        ServerAddress(host: "127.0.0.1", port: UInt16(port), scheme: caFile == nil ? .http : .https)
    }

    /// A throwaway CA and a server certificate it signs for 127.0.0.1, in `root/tls`, by the
    /// openssl command line (its chatter to /dev/null); returns the CA's certificate.
    static func makeCertificates(in root: String) throws -> String {
        let tls = root + "/tls"
        let newKey = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
        let script = """
            set -e; mkdir -p '\(tls)'; cd '\(tls)'
            openssl req -x509 \(newKey) -keyout ca.key -out ca.pem -days 1 -subj '/CN=chatdir demo CA'
            openssl req \(newKey) -keyout server.key -out server.csr -subj '/CN=chatdir demo server'
            printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > san.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -set_serial 1 -days 1 -extfile san.ext -out server.pem
            chmod 600 server.key
            """
        guard ChildProcess.run(["sh", "-c", "(" + script + ") >/dev/null 2>&1"]) == 0 else {
            throw CommandFailure(
                message:
                    "demo --tls needs the openssl command line to make its certificates (apt-get install openssl); or run `chatdir demo` without --tls",
                exitCode: 69)
        }
        return tls + "/ca.pem"
    }

    func startServer(faults: String = "") throws -> ChatServer {
        var configuration = ServerConfiguration(
            dataDirectory: root + "/server", port: port, faults: try Faults(parsing: faults))
        if caFile != nil {
            configuration.tlsCertificateFile = root + "/tls/server.pem"
            configuration.tlsKeyFile = root + "/tls/server.key"
        }
        let server = try ChatServer(configuration: configuration)
        try server.start()
        return server
    }

    func engine(_ store: Store) throws -> SyncEngine {
        var options = SyncEngine.Options()
        options.backoff = Backoff(initial: .milliseconds(50), maximum: .milliseconds(400))
        options.attemptsPerPass = 20
        options.outboxPollInterval = .milliseconds(20)
        options.caFile = caFile
        return try SyncEngine(store: store, server: address, token: "\(store.userID)-token", options: options)
    }

    func step(_ number: Int, _ title: String) {
        output.print("\n" + output.styled("\(number). \(title)", .bold))
    }

    func say(_ text: String) {
        output.print("   " + text)
    }

    /// The real `chatdir view` of a device, indented.
    func view(_ store: Store, _ label: String) {
        output.print(output.styled("   $ chatdir view ab   # \(label)", .dim))
        _ = Chatdir.run(["view", "--store", store.root, "ab"], environment: environment)
    }

    func wait(_ what: String, _ condition: () throws -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if (try? condition()) == true { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        say(output.styled("gave up waiting until \(what)", .red))
        return false
    }

    func rows(_ store: Store) throws -> [TimelineRow] {
        try store.conversation(ab).snapshot(limit: 50).rows(me: store.userID)
    }

    func run() async -> Int32 {
        do {
            return try await script()
        } catch {
            output.error("chatdir demo: \(error)")
            return 70
        }
    }

    private func script() async throws -> Int32 {
        // The sync engines of steps 1 to 7 hold the stores' locks until they go, at the end of
        // `steps()`: the chat screen then shows the laptop as a user finds it, with no worker.
        let status = try await steps()
        guard status == 0 else { return status }
        step(8, "The chat screen: `chatdir chat ab` on alice's laptop")
        try await chatScreen(laptop)
        return status
    }

    private func steps() async throws -> Int32 {
        output.print(output.styled("chatdir demo", .bold) + " in \(root)")
        say("server: \(address) (users alice and bob); stores: alice-phone, alice-laptop, bob")
        if caFile != nil {
            say(
                "over TLS: https and wss, the server's certificate signed by a throwaway CA (tls/ca.pem) that every device trusts"
            )
        }

        step(1, "Every device syncs once and learns the conversation")
        var server = try startServer()
        for store in [phone, laptop, bobStore] {
            let report = await (try engine(store)).syncOnce()
            say("\(store.root.split(separator: "/").last ?? ""): \(report.summary)")
        }
        server.stop()

        step(2, "The server is down; alice sends from her phone anyway")
        try Outbox(phone.conversation(ab)).enqueue("Hi Bob! Still on for dinner tonight?")
        view(phone, "alice's phone: the clock means pending")
        let offline = await (try engine(phone)).syncOnce()
        say("chatdir sync → exit \(offline.exitCode): \(offline.problems.first ?? offline.summary)")

        step(3, "The server comes back; sync delivers it")
        server = try startServer()
        let online = await (try engine(phone)).syncOnce()
        say("chatdir sync → exit \(online.exitCode): \(online.summary)")
        view(phone, "alice's phone: ✓ sent")

        step(4, "Every device runs `chatdir sync --live`; bob receives live")
        let engines = try [phone, laptop, bobStore].map { try engine($0) }
        var workers = engines.map { engine in Task { _ = await engine.runLive(log: { _ in }) } }
        try Outbox(phone.conversation(ab)).enqueue("I'll book a table for eight")
        guard await wait("bob has both messages", { try rows(bobStore).count == 2 }) else { return 70 }
        view(bobStore, "bob's device")

        step(5, "Bob answers and reads (`chatdir read ab`); both of alice's devices show ✓✓ read")
        try Outbox(bobStore.conversation(ab)).enqueue("Perfect, see you at eight")
        guard await wait("alice's laptop has bob's answer", { try rows(laptop).count == 3 }) else { return 70 }
        try Outbox(bobStore.conversation(ab)).wantRead(upTo: 3)
        let readOnBoth = await wait("both alice devices show read") {
            try [phone, laptop].allSatisfy { store in
                try rows(store).allSatisfy { $0.status == .incoming || $0.status == .outgoing(.read) }
            }
        }
        guard readOnBoth else { return 70 }
        view(phone, "alice's phone")
        view(laptop, "alice's laptop: the same, though it sent nothing from here")

        step(6, "Faults on: about half the replies dropped after commit, half the requests answered 503")
        workers.forEach { $0.cancel() }
        for worker in workers { await worker.value }
        server.stop()
        server = try startServer(faults: "drop-reply=0.5,error5xx=0.5,seed=3")
        try Outbox(phone.conversation(ab)).enqueue("Running ten minutes late, sorry")
        try Outbox(phone.conversation(ab)).enqueue("Parking now")
        let faulty = await engines[0].syncOnce()
        say("chatdir sync → exit \(faulty.exitCode): \(faulty.summary) (retried with the same client message IDs)")
        server.stop()
        server = try startServer()
        let history = try await APIClient(server: address, token: "alice-token", caFile: caFile).messages(
            ab, .newest, limit: 50
        ).items
        say(
            "the server holds \(history.count) messages, \(Set(history.map(\.clientMessageID)).count) distinct client IDs: each send exactly once"
        )
        view(phone, "alice's phone")
        say(
            "✓ sent: the server has the two new ones; bob's device is offline (no worker runs), so it has not fetched them"
        )

        step(7, "Alice's two devices hold byte-identical files")
        workers = engines.map { engine in Task { _ = await engine.runLive(log: { _ in }) } }
        let converged = await wait("every device has all five messages") {
            try [phone, laptop, bobStore].allSatisfy { try rows($0).count == 5 && $0.conversation(ab).outbox().isEmpty }
        }
        workers.forEach { $0.cancel() }
        for worker in workers { await worker.value }
        // Receipts still in flight settle with one last pass each: bob's first (his delivered
        // position), then both of alice's devices read the same positions from the server.
        for engine in [engines[2], engines[0], engines[1]] { _ = await engine.syncOnce() }
        server.stop()
        guard converged else { return 70 }
        let a = phone.conversation(ab).directory
        let b = laptop.conversation(ab).directory
        output.print(
            output.styled(
                "   $ diff -r alice-phone/…/ab/messages alice-laptop/…/ab/messages && diff …/positions.json …", .dim))
        let messagesDiffer = ChildProcess.run(["diff", "-r", a + "/messages", b + "/messages"])
        let positionsDiffer = ChildProcess.run(["diff", a + "/positions.json", b + "/positions.json"])
        say(messagesDiffer == 0 && positionsDiffer == 0 ? "no differences" : "they differ (see above)")
        view(laptop, "alice's laptop")
        // The two new messages were ✓ sent in step 6 and are ✓✓ delivered now, with no word
        // from alice: say why, from what the ticks say, not from what they should say.
        let newest = try rows(laptop).last?.status
        if newest == .outgoing(.delivered) {
            say("✓ sent in step 6 is ✓✓ delivered now: bob's worker runs again, has fetched them and told the")
            say("server how far it got; alice's devices learnt it from the server. ✓✓ read once bob reads them.")
        } else if newest == .outgoing(.sent) {
            say("still ✓ sent: the server has not told alice's laptop yet that bob's device fetched them")
        }
        return messagesDiffer == 0 && positionsDiffer == 0 ? 0 : 1
    }

    /// One frame of `chatdir chat ab` on `store`, laid out by the chat screen itself
    /// (``ChatScreenModel/frame(_:)``) for a terminal of `rows` × `columns`, drawn in a box.
    func chatScreen(_ store: Store, rows: Int = 14, columns: Int = 70) async throws {
        output.print(
            output.styled(
                "   $ chatdir chat ab   # on a terminal of \(columns)×\(rows); Enter sends, Ctrl-C leaves", .dim))
        let conversation = store.conversation(ab)
        let read = max(
            try conversation.snapshot(limit: 1).positions?[store.userID].readUpTo ?? 0,
            try conversation.wantedReadPosition() ?? 0)
        var model = ChatScreenModel(
            me: store.userID, conversation: ab, readPosition: read == 0 ? nil : read,
            hint: PasteHint(store: store.root), rows: rows, columns: columns)
        for await state in try StoreObserver(store: store).states(in: ab, limit: 50) {
            model.update(state)
            break
        }
        let frame = model.frame(output)
        let edge = String(repeating: "─", count: columns)
        output.print("   ┌" + edge + "┐")
        for line in frame.lines + [String](repeating: "", count: max(0, rows - frame.lines.count)) {
            output.print(
                "   │" + line + String(repeating: " ", count: max(0, columns - Terminal.visibleWidth(line))) + "│")
        }
        output.print("   └" + edge + "┘")
    }

    /// The commands to try after the demo: on its stores when they were kept, else how to keep them.
    func next(kept: Bool) {
        output.print("\n" + output.styled("Next", .bold))
        guard kept else {
            say("The demo's stores were temporary and are gone. To keep them and open the chat screen:")
            say("  chatdir demo --keep")
            say("Your own store and server: README.md, \"Syncing with a server\" (or `man chatdir`).")
            return
        }
        let laptop = PasteHint.shellWord(root + "/alice-laptop")
        say("Everything is in \(root). The server stopped with the demo; start it again, then chat:")
        let tls =
            caFile == nil
            ? ""
            : " --tls-cert \(PasteHint.shellWord(root + "/tls/server.pem")) --tls-key \(PasteHint.shellWord(root + "/tls/server.key"))"
        say("  chatdir serve --data \(PasteHint.shellWord(root + "/server")) --port \(port)\(tls) &")
        let ca = caFile.map { " --ca-file \(PasteHint.shellWord($0))" } ?? ""
        say("  CHATDIR_TOKEN=alice-token chatdir sync --live --store \(laptop)\(ca) &")
        say("  chatdir chat --store \(laptop) ab")
        say(
            "or look at the files: ls -R \(laptop); cat \(PasteHint.shellWord(root + "/bob/conversations/ab/positions.json"))"
        )
    }
}
