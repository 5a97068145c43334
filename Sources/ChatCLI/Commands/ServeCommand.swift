import ChatDomain
import ChatServer
import ChatSystem

/// `chatdir serve`: runs the reference server of wire v1 until SIGINT or SIGTERM.
enum ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Run the reference server (wire v1 over HTTP/1.1 and WebSocket) on a data directory.",
        usage: [
            "--data DIR [--port P] [--users FILE] [--faults LIST] [--tls-cert FILE --tls-key FILE]",
            "--init DIR --user NAME [--user NAME...]",
        ],
        options: [
            .init(
                name: "--data", value: "DIR",
                help: "the data directory; the server WRITES into it (make one with --init)"),
            .init(
                name: "--init", value: "DIR",
                help: "make a new data directory for the --user names, print their tokens once, and exit"),
            .init(
                name: "--user", value: "NAME",
                help: "with --init: a user to make, with a fresh random token; repeat it for each"),
            .init(name: "--port", value: "P", help: "TCP port on 127.0.0.1 (default 8080; 0 picks a free one)"),
            .init(name: "--host", value: "ADDR", help: "IPv4 address to bind (default 127.0.0.1, loopback only)"),
            .init(
                name: "--users", value: "FILE",
                help: "the users file mapping tokens to user IDs (default DIR/users.json)"),
            .init(name: "--faults", value: "LIST", help: "faults to inject, comma-separated key=value (see below)"),
            .init(
                name: "--tls-cert", value: "FILE",
                help: "serve HTTPS and WSS with this PEM certificate chain (the server's own first)"),
            .init(name: "--tls-key", value: "FILE", help: "the PEM private key of --tls-cert; must be mode 0600"),
        ],
        discussion: """
            A data directory holds users.json (the users file), conversations/ (one directory per
            conversation, in the store format of chatdir-store(5): conversation.json, messages/,
            positions.json) and .lock while a server runs. --init DIR makes one: DIR must be new or
            empty; each --user gets a token of 64 hex digits from the system's random source, printed
            once on stdout as `NAME TOKEN` lines; directories are 0700 and users.json 0600. There
            are no conversations yet: members start them with `chatdir create`.

            The users file (DIR/users.json, or --users FILE) is a JSON array with one object per
            line, "token" and "userId", both strings: a token is visible ASCII, a user ID letters,
            digits, '.', '_' and '-'. A user may have several tokens (one per device); a token
            belongs to one user. To add a user or a token, add a line and restart the server:
              [
              {"token":"3f1c…","userId":"alice"},
              {"token":"9a0b…","userId":"bob"}
              ]

            Prints the server's URL, then a line starting with "ready" once it accepts connections.
            Stops cleanly on SIGINT (Ctrl-C) or SIGTERM: exit 0. A 201 is sent only after the message
            is on disk, so even kill -9 loses nothing that was acknowledged.

            Faults (seeded: the same --faults and requests give the same faults):
              drop-reply=P        commit a POST, then close the connection without replying
              error5xx=P          answer 503 before doing anything
              rate-limit=P:S      answer 429 with Retry-After: S before doing anything
              latency=D           wait D before every HTTP reply (250ms, 2s)
              live-close=D        close every live socket D after it opened (code 1001)
              live-drop=P         do not send a live event
              live-dup=P          send a live event twice
              live-reorder=P      send a live event after the next one
              live-hold=N         hold a live socket's first N events, then send them together
              reject-text=WORD    refuse (400) a POST whose text contains WORD
              no-start=404|405    answer POST /v1/conversations so (a server without it)
              seed=N              seed for every decision (default 0)
            P is a probability from 0 to 1.

            Examples:
              chatdir serve --init /tmp/chat-server --user alice --user bob
              chatdir serve --data /tmp/chat-server --port 8080
              chatdir serve --data /tmp/chat-server --faults drop-reply=0.2,rate-limit=0.1:2,seed=7
              curl -H "Authorization: Bearer $token" http://127.0.0.1:8080/v1/conversations
            """,
        takesStore: false
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(0)
        if let directory = arguments.value("--init") {
            return try initialize(context, directory: directory)
        }
        guard arguments.allValues("--user").isEmpty else {
            throw context.usage(
                "--user goes with --init DIR (to make a data directory); a running server reads its users from the users file"
            )
        }
        guard let data = arguments.value("--data"), !data.isEmpty else {
            throw context.usage(
                "missing --data DIR (the server's data directory; make one with `chatdir serve --init DIR --user NAME...`)"
            )
        }
        var configuration = ServerConfiguration(dataDirectory: data, usersFile: arguments.value("--users"))
        configuration.port = try arguments.integer("--port", in: 0...65535) ?? 8080
        if let host = arguments.value("--host") { configuration.host = host }
        switch (arguments.value("--tls-cert"), arguments.value("--tls-key")) {
        case (let certificate?, let key?):
            configuration.tlsCertificateFile = certificate
            configuration.tlsKeyFile = key
        case (nil, nil): break
        default: throw context.usage("--tls-cert and --tls-key go together: pass both, or neither for plain HTTP")
        }
        if let faults = arguments.value("--faults") {
            do { configuration.faults = try Faults(parsing: faults) } catch { throw context.usage(error.description) }
        }

        // Before any thread exists, so every thread inherits the blocked signals.
        TerminationSignals.block()
        let server: ChatServer
        do {
            server = try ChatServer(configuration: configuration)
            try server.start()
        } catch {
            context.output.error("chatdir serve: \(error)")
            return error.exitCode
        }
        context.output.print(server.url)
        let faults = configuration.faults.isActive ? "; faults: \(configuration.faults)" : ""
        context.output.print("ready: \(server.summary) from \(data)\(faults); Ctrl-C stops")
        let signal = TerminationSignals.wait()
        context.output.error("chatdir serve: \(signal), stopping")
        server.stop()
        return 0
    }

    /// `serve --init DIR --user NAME…`: makes the data directory and prints each user's token.
    static func initialize(_ context: Context, directory: String) throws -> Int32 {
        let arguments = context.arguments
        guard !directory.isEmpty else { throw context.usage("--init needs a directory") }
        for other in ["--data", "--port", "--host", "--users", "--faults", "--tls-cert", "--tls-key"]
        where arguments.value(other) != nil {
            throw context.usage(
                "--init only makes a data directory and exits: run `chatdir serve --data \(directory) \(other) …` after it"
            )
        }
        var users: [UserID] = []
        for name in arguments.allValues("--user") {
            let user: UserID
            do { user = try UserID(name) } catch { throw context.usage("--user: \(error)") }
            guard !users.contains(user) else { throw context.usage("--user \(name) is given twice") }
            users.append(user)
        }
        guard !users.isEmpty else {
            throw context.usage("--init needs at least one --user NAME (a user who may sign in)")
        }
        let tokens: UserTokens
        do { tokens = try DataDirectory.initialize(at: directory, users: users) } catch {
            context.output.error(context.output.safe("chatdir serve: \(error)"))
            return error.exitCode
        }
        for (user, token) in tokens.tokensByUser {
            context.output.print("\(user.rawValue) \(token)")
        }
        context.output.error(
            context.output.safe(
                "made \(directory) for \(users.count) user\(plural(users.count)); their tokens are above, shown this once (the server keeps them in \(directory)/\(DataDirectory.usersFileName), mode 0600); "
                    + "next: `chatdir serve --data \(PasteHint.shellWord(directory))`, and each user runs `chatdir init --user NAME --server URL` with CHATDIR_TOKEN set to their token"
            ))
        return 0
    }
}
