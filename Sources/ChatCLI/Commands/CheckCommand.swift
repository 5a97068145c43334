import ChatStore
import ChatSystem

/// `chatdir check`: validates a store or fixture directory, reading only.
enum CheckCommand: Command {
    static let spec = CommandSpec(
        name: "check",
        summary: "Validate a store or fixture; list every problem with file:line.",
        usage: ["[DIR]"],
        options: [
            .init(name: "--quiet", value: nil, help: "print only errors: no warnings, summary or progress line"),
            .init(
                name: "--fix-modes", value: nil,
                help: "first give files mode 0600 and directories 0700 again (after a git clone)"),
        ],
        discussion: """
            DIR defaults to the --store path. Reads only: nothing is ever rewritten or deleted,
            except the permission bits with --fix-modes (git keeps neither 0600 nor 0700, so a
            clone's files can be read by others; .git is left alone).
            Each problem is printed as `path:line: what is wrong; what to do`, paths relative to DIR.
            A file git could not merge is one error, `unresolved git merge conflict in FILE`.
            Files and directories other users may read (a mode wider than 0600 or 0700, as git
            leaves them after a clone, pull or merge) are one warning naming the first of them;
            --fix-modes restores them, and `chatdir git-setup` installs hooks that do after a pull.
            Exit status 65 when there is any error, 0 when there are only warnings or nothing.

            Example, after cloning a store:
              chatdir check --fix-modes --store ~/chats
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let quiet = arguments.flag("--quiet")
        let root = arguments.positionals.first ?? context.storePath
        if arguments.flag("--fix-modes"), Sys.kind(of: root) == .directory {
            let changed = try StoreGitFiles.restoreModes(in: root)
            if !quiet, !changed.isEmpty {
                context.output.error(
                    "restored modes 0600 (files) and 0700 (directories) on \(changed.count) path\(plural(changed.count))"
                )
            }
        }
        let progress = ProgressLine(output: context.output, quiet: quiet)
        let report = StoreChecker.check(root: root) { checked in
            progress.update(.init(label: "checking", done: checked, total: nil, unit: "messages"))
        }
        progress.finish()
        for problem in report.problems where !quiet || problem.severity == .error {
            let label =
                problem.severity == .error
                ? context.output.styled("error", .red) : context.output.styled("warning", .yellow)
            context.output.print(
                context.output.safe("\(problem.path)\(problem.line.map { ":\($0)" } ?? ""): ") + label + ": "
                    + context.output.safe(problem.message))
        }
        if !quiet {
            let summary =
                "\(root): \(report.conversations) conversation\(plural(report.conversations)), "
                + "\(report.segments) segment\(plural(report.segments)), \(report.messages) message\(plural(report.messages)), "
                + "\(report.outboxFiles) outbox file\(plural(report.outboxFiles)): "
                + "\(report.errors.count) error\(plural(report.errors.count)), \(report.warnings.count) warning\(plural(report.warnings.count))"
            context.output.error(summary)
        }
        return report.errors.isEmpty ? 0 : 65
    }
}
