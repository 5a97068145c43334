import ChatStore
import ChatSystem

/// `chatdir git-setup`: prepares a store to be kept in git (ignore and attribute files, the
/// merge driver in the repository's config, the modes a clone loses).
enum GitSetupCommand: Command {
    static let spec = CommandSpec(
        name: "git-setup",
        summary: "Prepare a store for git: ignore rules, merge driver, file modes.",
        usage: ["[DIR]", "--modes-only [DIR]"],
        options: [
            .init(
                name: "--modes-only", value: nil,
                help: "only give files 0600 and directories 0700 again, quietly (what the hooks run)")
        ],
        discussion: """
            DIR defaults to the --store path. Safe to run again: it changes only what is missing.
              - writes .gitignore (per-device files: hidden names such as .lock and .caught-up,
                and outbox/) and .gitattributes (the shared files merge=chatdir); a file already
                there keeps its lines and gains only the rules it lacks
              - gives files mode 0600 and directories 0700 again (git keeps neither)
              - when DIR is in a git repository, registers the merge driver in that repository's
                config (git runs no driver that .gitattributes names but its config lacks):
                  merge.chatdir.driver = /path/to/chatdir merge-file %O %A %B %P
                with the absolute path of this chatdir, so git finds it whatever PATH the program
                running git has; run git-setup again after moving chatdir, and in every new clone
                (a clone does not copy the config)
              - installs the hooks post-checkout, post-commit, post-merge and post-rewrite in that
                repository: git writes what a checkout, pull, merge or rebase brings with the umask's
                modes (0644 under the usual 022), and each hook runs `chatdir git-setup --modes-only`
                on the store afterwards (post-commit for a merge that stopped on a conflict). A hook of that name that chatdir did not write is left as it
                is: git-setup says which line to add to it and exits 73.

            Example:
              cd ~/chats && git init && chatdir git-setup --store ~/chats
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let root = arguments.positionals.first ?? context.storePath
        if arguments.flag("--modes-only") {
            // Run by the hooks after every checkout, also of a commit without the store: a
            // missing store is nothing to do, and git shows nothing a hook prints on success.
            // Never a directory that is not a store: modes are changed only where chatdir owns them.
            guard Sys.kind(of: root + "/" + StoreLayout.manifest) == .file else { return 0 }
            _ = try StoreGitFiles.restoreModes(in: root)
            return 0
        }
        _ = try Store.open(at: root)
        for name in try StoreGitFiles.install(in: root) {
            context.output.print(context.output.safe("wrote \(name)"))
        }
        let modes = try StoreGitFiles.restoreModes(in: root)
        if !modes.isEmpty {
            context.output.print(
                "restored modes 0600 (files) and 0700 (directories) on \(modes.count) path\(plural(modes.count))")
        }
        guard let repository = StoreGitFiles.repository(containing: root) else {
            context.output.print(
                context.output.safe(
                    "not in a git repository: run `git init` in \(root), then `\(PasteHint(store: root).command("git-setup", ""))` again to register the merge driver"
                ))
            return 0
        }
        let driver = driverCommand()
        for (key, value) in [
            ("merge.\(StoreGitFiles.driverName).name", "chatdir store files"),
            ("merge.\(StoreGitFiles.driverName).driver", driver),
        ] {
            let status = ChildProcess.run(["git", "-C", root, "config", key, value])
            if status == 127 {
                throw CommandFailure(
                    message: "cannot run git (is it installed and on PATH?); the merge driver is not registered",
                    exitCode: 69)
            }
            if status != 0 {
                throw CommandFailure(
                    message: context.output.safe(
                        "`git config \(key)` failed (exit \(status)) in \(repository); the merge driver is not registered"
                    ), exitCode: 74)
            }
        }
        context.output.print(context.output.safe("merge driver registered in \(repository): \(driver)"))
        return try installHooks(context, root: root, repository: repository)
    }

    /// Installs the hooks that restore the modes (``StoreGitHooks``), in the hooks directory
    /// git uses for `root` (`core.hooksPath` and worktrees included). Exit 73 when a hook of
    /// the user's own is in the way.
    static func installHooks(_ context: Context, root: String, repository: String) throws -> Int32 {
        let asked = CapturedProcess.run(
            ["git", "-C", root, "rev-parse", "--show-prefix", "--git-path", "hooks"], timeout: .seconds(30))
        let lines = String(decoding: asked.standardOutput, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
        guard asked.status == 0, lines.count >= 2, !lines[1].isEmpty else {
            throw CommandFailure(
                message: context.output.safe(
                    "`git rev-parse --git-path hooks` failed (exit \(asked.status)) in \(repository); the hooks that restore modes are not installed"
                ), exitCode: 74)
        }
        // The store's path from the top of the work tree, where git runs hooks: the hook keeps
        // working when the repository moves.
        var prefix = lines[0]
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let hooks = lines[1].hasPrefix("/") ? lines[1] : root + "/" + lines[1]
        let command =
            PasteHint.shellWord(Sys.realPath("/proc/self/exe") ?? "chatdir") + " git-setup --modes-only "
            + PasteHint.shellWord(prefix.isEmpty ? "." : prefix)
        let outcome = try StoreGitHooks.install(in: hooks, command: command)
        if !outcome.written.isEmpty {
            context.output.print(
                context.output.safe(
                    "installed git hooks \(outcome.written.joined(separator: ", ")) in \(hooks): after a checkout, pull, merge, rebase or commit they give files 0600 and directories 0700 back"
                ))
        }
        guard outcome.foreign.isEmpty else {
            for name in outcome.foreign {
                context.output.error(
                    context.output.safe(
                        "chatdir git-setup: \(hooks)/\(name) is not chatdir's and is left as it is; add this line to it, or git will leave what it writes readable by others: \(command)"
                    ))
            }
            return 73
        }
        return 0
    }

    /// The driver as git's config holds it: this executable's absolute path (plain `chatdir`
    /// when it cannot be found), quoted for the shell git runs it with.
    static func driverCommand() -> String {
        let program = Sys.realPath("/proc/self/exe") ?? "chatdir"
        return PasteHint.shellWord(program) + " merge-file %O %A %B %P"
    }
}
