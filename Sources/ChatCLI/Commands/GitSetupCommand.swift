import ChatStore
import ChatSystem

/// `chatdir git-setup`: prepares a store to be kept in git (ignore and attribute files, the
/// merge driver in the repository's config, the modes a clone loses).
enum GitSetupCommand: Command {
    static let spec = CommandSpec(
        name: "git-setup",
        summary: "Prepare a store for git: ignore rules, merge driver, file modes.",
        usage: ["[DIR]"],
        options: [],
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
            (a clone does not copy the config).

        Example:
          cd ~/chats && git init && chatdir git-setup --store ~/chats
        """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let root = arguments.positionals.first ?? context.storePath
        _ = try Store.open(at: root)
        for name in try StoreGitFiles.install(in: root) {
            context.output.print(context.output.safe("wrote \(name)"))
        }
        let modes = try StoreGitFiles.restoreModes(in: root)
        if !modes.isEmpty {
            context.output.print("restored modes 0600 (files) and 0700 (directories) on \(modes.count) path\(plural(modes.count))")
        }
        guard let repository = StoreGitFiles.repository(containing: root) else {
            context.output.print(context.output.safe("not in a git repository: run `git init` in \(root), then `\(PasteHint(store: root).command("git-setup", ""))` again to register the merge driver"))
            return 0
        }
        let driver = driverCommand()
        for (key, value) in [("merge.\(StoreGitFiles.driverName).name", "chatdir store files"), ("merge.\(StoreGitFiles.driverName).driver", driver)] {
            let status = ChildProcess.run(["git", "-C", root, "config", key, value])
            if status == 127 {
                throw CommandFailure(message: "cannot run git (is it installed and on PATH?); the merge driver is not registered", exitCode: 69)
            }
            if status != 0 {
                throw CommandFailure(message: context.output.safe("`git config \(key)` failed (exit \(status)) in \(repository); the merge driver is not registered"), exitCode: 74)
            }
        }
        context.output.print(context.output.safe("merge driver registered in \(repository): \(driver)"))
        return 0
    }

    /// The driver as git's config holds it: this executable's absolute path (plain `chatdir`
    /// when it cannot be found), quoted for the shell git runs it with.
    static func driverCommand() -> String {
        let program = Sys.realPath("/proc/self/exe") ?? "chatdir"
        return PasteHint.shellWord(program) + " merge-file %O %A %B %P"
    }
}
