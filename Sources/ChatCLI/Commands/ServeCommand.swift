import ChatServer
import ChatSystem

/// `chatdir serve`: runs the reference server of wire v1 until SIGINT or SIGTERM.
enum ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Run the reference server (wire v1 over HTTP/1.1 and WebSocket) on a data directory.",
        usage: ["--data DIR [--port P] [--users FILE] [--faults LIST] [--tls-cert FILE --tls-key FILE]"],
        options: [
            .init(name: "--data", value: "DIR", help: "the data directory; the server WRITES into it (copy SampleData/server first)"),
            .init(name: "--port", value: "P", help: "TCP port on 127.0.0.1 (default 8080; 0 picks a free one)"),
            .init(name: "--host", value: "ADDR", help: "IPv4 address to bind (default 127.0.0.1, loopback only)"),
            .init(name: "--users", value: "FILE", help: "the users file mapping tokens to user IDs (default DIR/users.json)"),
            .init(name: "--faults", value: "LIST", help: "faults to inject, comma-separated key=value (see below)"),
            .init(name: "--tls-cert", value: "FILE", help: "serve HTTPS and WSS with this PEM certificate chain (the server's own first)"),
            .init(name: "--tls-key", value: "FILE", help: "the PEM private key of --tls-cert; must be mode 0600"),
        ],
        discussion: """
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
          cp -R SampleData/server /tmp/chat-server
          chatdir serve --data /tmp/chat-server --port 8080
          chatdir serve --data /tmp/chat-server --faults drop-reply=0.2,rate-limit=0.1:2,seed=7
          curl -H 'Authorization: Bearer alice-token' http://127.0.0.1:8080/v1/conversations
        """,
        takesStore: false
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(0)
        guard let data = arguments.value("--data"), !data.isEmpty else {
            throw context.usage("missing --data DIR (the server's data directory; try a copy of SampleData/server)")
        }
        var configuration = ServerConfiguration(dataDirectory: data, usersFile: arguments.value("--users"))
        configuration.port = try arguments.integer("--port", in: 0...65535) ?? 8080
        if let host = arguments.value("--host") { configuration.host = host }
        switch (arguments.value("--tls-cert"), arguments.value("--tls-key")) {
        case let (certificate?, key?):
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
}
