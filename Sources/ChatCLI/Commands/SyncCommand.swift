import ChatDomain
import ChatStore
import ChatSync

/// `chatdir sync`: one pass, or the live worker with `--live`.
enum SyncCommand: Command {
    static let spec = CommandSpec(
        name: "sync",
        summary: "Sync with the server: one pass, or stay connected with --live.",
        usage: ["[--live] [--server URL] [--token-file FILE]"],
        options: [
            .init(
                name: "--live", value: nil,
                help: "stay connected: deliver as messages are queued, receive live, reconnect and catch up"),
            .init(
                name: "--quiet", value: nil,
                help: "no progress line on a terminal during a long catch-up (there is none in a pipe)"),
        ] + SyncSetup.options,
        discussion: """
            One pass: discover conversations, catch up on new messages, fetch receipts, deliver the
            outbox oldest first, post read positions, and print a summary line: `synced …` when
            nothing went wrong; after a problem (on stderr) only what was done, `partly synced: 3 new
            messages, 1 sent; 1 still pending`, or `not synced`.
            Exit status: 0 everything pending was accepted; 65 a message was rejected (it is now
            failed: see `chatdir view`, then `chatdir retry`); 74 the store could not be written (a full
            disk: free some space, then sync again); 75 some messages are still pending
            (the server could not be reached or kept failing: run sync again later); 76 the server
            broke the wire contract; 77 the token was refused (or the token file is readable by
            others); 78 no token or server configured, or a token file that is missing or empty.

            A Matrix store (`chatdir init --user @name:server`) syncs with the homeserver: the token
            is a Matrix access token (`chatdir login` saves one and points the config at it); every
            joined room is a conversation; the syncs bring its newest messages and 10,000 older ones
            ($CHATDIR_FIRST_SYNC_HISTORY=N sets how many; a pass cut short, or killed, leaves the
            rest to the next one, and --live pages them in the background; older still:
            `chatdir history`); read ticks come from
            `m.read` receipts and there are no delivered ticks; an end-to-end encrypted room is
            listed, counted as "end-to-end encrypted, not supported", and never synced or sent to.
            A conversation started with `chatdir create` becomes a room (found again by its
            creation key if an answer was lost, never made twice), and its folder is renamed to
            the room's: the pass prints `started ID as FOLDER`, and the outbox goes out from there.

            --live holds the store's lock (a second worker, or a one-pass sync, on the same store
            exits with 75, naming the worker's pid and how to stop it) and runs until SIGINT or
            SIGTERM, which finish the current write and exit 0. When the live connection ends it
            dials again after a backoff (half a second at first, doubling up to 30 s;
            $CHATDIR_RECONNECT_BACKOFF=FIRST,LONGEST in seconds sets them), and at once when any
            other request to the server succeeds meanwhile (the outbox going out after the server
            came back), so incoming messages do not wait for the rest of it; a server's Retry-After
            is waited in full. Log lines go to stderr, after an ISO 8601 UTC time stamp when stderr
            is not a terminal (journalctl, a log file).
            New outbox files and typing are seen through inotify; when the kernel's per-user inotify
            limits are reached (fs.inotify.max_user_watches, max_user_instances) they are checked
            every second instead, and the log says so once.

            Each setting is taken from the first of: the flag, the environment ($CHATDIR_SERVER,
            $CHATDIR_TOKEN, $CHATDIR_CA_FILE), the store's section of the config file (`server`,
            `token-file`, `token-command`, `ca-file`; see `chatdir config --help`), and for the server
            the store's own. The token is never written into the store. A token from a file or a
            token-command is fetched again when the server refuses it (401): a pass runs once more
            with the new one, and --live reconnects with it, so an expiring token is renewed. A new
            token refused as well ends the pass with 77.

            Examples:
              CHATDIR_TOKEN=alice-token chatdir sync --store ~/chats
              chatdir sync --live --token-file ~/.config/chatdir/token &
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        try context.arguments.expectAtMost(0)
        let setup = try SyncSetup(context)
        let engine = try setup.engine()
        let output = context.output
        let live = context.arguments.flag("--live")
        // Made only now that the engine holds the store's lock (see `chatdir status`).
        let metrics = WorkerMetrics(storeRoot: setup.store.root, mode: live ? .live : .pass)
        defer { metrics.stopped() }
        if live {
            let stamped = !output.isTerminalError
            let log: @Sendable (String) -> Void = { line in
                output.error(LogLine.format("chatdir sync: " + line, stamped: stamped))
            }
            let ended = runUntilDone(interruptible: true) {
                await engine.setMetrics(metrics)
                return await engine.runLive(log: log)
            }
            // Why it ended (the token refused) stays in `.sync-status` for the screens and `status`.
            metrics.stopped(problem: ended?.description)
            return liveExitCode(ended)
        }
        let progress = ProgressLine(output: output, quiet: context.arguments.flag("--quiet"))
        let report = runUntilDone(interruptible: false) { () async -> SyncEngine.Report in
            await engine.setMetrics(metrics)
            await engine.setProgress { progress.update(ProgressLine.Reading($0)) }
            return await engine.syncOnceRenewingToken { line in output.error("chatdir sync: " + line) }
        }
        progress.finish()
        // The folder a conversation started here lives in from now on (a Matrix room's name).
        for started in report.started { output.print("started \(started.id) as \(started.folder)") }
        for failure in report.failed { output.error("chatdir sync: rejected: \(failure)") }
        for problem in report.problems { output.error("chatdir sync: \(problem)") }
        for invitation in report.invitations {
            output.error(output.safe("chatdir sync: " + invitation.described(joining: context.hint)))
        }
        output.print(output.safe(report.summary))
        return report.exitCode
    }
}

extension Invitation {
    /// `invited to "Dinner" (!abc:example.org) by @bob:example.org; join: chatdir join '!abc:example.org'`.
    func described(joining hint: PasteHint) -> String {
        let named = name.map { "\(quoted($0)) (\(room))" } ?? room
        let by = inviter.map { " by \($0)" } ?? ""
        return "invited to \(named)\(by); join: " + hint.command("join", PasteHint.shellWord(room))
    }
}
