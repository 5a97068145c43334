import ChatDomain
import ChatStore

/// `chatdir merge-file`: git's merge driver for the shared files of a store.
enum MergeFileCommand: Command {
    static let spec = CommandSpec(
        name: "merge-file",
        summary: "Merge two versions of a store file (git's merge driver).",
        usage: ["BASE OURS THEIRS PATH", "--keep ours|theirs FILE"],
        options: [
            .init(
                name: "--keep", value: "SIDE",
                help:
                    "resolve the conflicted FILE in place, keeping ours or theirs in every hunk (and every record no conflict involves)"
            )
        ],
        discussion: """
            git runs this as `chatdir merge-file %O %A %B %P` for the files .gitattributes marks
            merge=chatdir, once `chatdir git-setup` has registered it; it is rarely typed by hand.
            BASE, OURS and THEIRS are the common ancestor (empty when both sides added the file), our
            version and theirs; PATH is the file's path in the repository, which says what it is.
            The result replaces OURS, in the bytes one device that saw both sides would hold:
              messages/<first>-<last>.json  the union of both sides' records by sequence
              positions.json                the higher of each number per member
              conversation.json             the side whose members include the other's
            Exit status 0 for a clean merge. 1 for a real conflict (one sequence holding two
            different records, two member lists neither of which includes the other): OURS then
            holds the conflict between git's markers, the conflicts are listed on stderr, and
            `chatdir check` names the file until it is resolved; deleting the markers and either
            side of each hunk, hunk by hunk, always leaves a valid file (`chatdir manual store`
            shows the layout). 65 when a side is damaged (named, with its line), 64 for a PATH
            that is not a store file chatdir merges, 66 for a missing BASE, OURS or THEIRS.

            With --keep ours (or theirs), FILE is a store file the merge left with conflict markers:
            the markers and the other side of every hunk are deleted, in place, so every record no
            conflict involves stays, whichever side it came from; then `git add FILE`. (`git checkout
            --ours FILE` instead takes our whole file as it was before the merge and drops every
            record only theirs had.) The result is read back first: exit 65, and FILE untouched, when
            it would not be a sound store file; 0 with a note when FILE has no markers.

            Examples:
              chatdir merge-file .merge_file_a1 .merge_file_b2 .merge_file_c3 conversations/dinner/positions.json
              chatdir merge-file --keep ours conversations/dinner/messages/0000000001-0000000100.json
            """,
        takesStore: false
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        if let keep = arguments.value("--keep") {
            return try resolve(context, keeping: keep)
        }
        try arguments.expectAtMost(4)
        let base = try arguments.positional(0, "BASE (the common ancestor's file, %O)")
        let ours = try arguments.positional(1, "OURS (our version, replaced by the result, %A)")
        let theirs = try arguments.positional(2, "THEIRS (their version, %B)")
        let path = try arguments.positional(3, "PATH (the file's path in the repository, %P)")
        let outcome: StoreMerge.Outcome
        do {
            outcome = try StoreMerge.mergeFiles(base: base, ours: ours, theirs: theirs, path: path)
        } catch {
            throw failure(error, context, missing: "git gives the three files, see `chatdir merge-file --help`")
        }
        guard outcome.isClean else {
            for conflict in outcome.conflicts {
                context.output.error(context.output.safe("chatdir merge-file: conflict in \(path): \(conflict)"))
            }
            context.output.error(
                context.output.safe(
                    "chatdir merge-file: \(path) is left with git's conflict markers: \(GitConflictMarkers.resolveAdvice(PasteHint.shellWord(path)))"
                ))
            return 1
        }
        return 0
    }

    /// The error to exit with for `error`: 64 for a path chatdir does not merge, 65 for a side
    /// or result that is not sound, 66 (with `missing`, what to do) for a file not found.
    static func failure(_ error: StoreMerge.Failure, _ context: Context, missing: String) -> any Error {
        switch error {
        case .notAStoreFile: return context.usage(error.description)
        case .damaged, .unresolvable: return CommandFailure(message: error.description, exitCode: 65)
        case .system(let failure):
            if failure.isNotFound { return CommandFailure(message: "\(failure); \(missing)", exitCode: 66) }
            return StoreError.system(failure)
        }
    }

    /// `merge-file --keep SIDE FILE`: resolves a conflicted store file in place.
    static func resolve(_ context: Context, keeping keep: String) throws -> Int32 {
        let arguments = context.arguments
        guard let side = StoreMerge.KeptSide(rawValue: keep) else {
            throw context.usage("--keep takes ours or theirs, not \(quoted(keep))")
        }
        try arguments.expectAtMost(1)
        let file = try arguments.positional(0, "FILE (the store file git left with conflict markers)")
        let resolution: StoreMerge.Resolution
        do {
            resolution = try StoreMerge.resolveFile(file, keeping: side, path: file)
        } catch {
            throw failure(
                error, context,
                missing: "give the path git printed in its CONFLICT line, from the repository's top directory")
        }
        guard resolution.hunks > 0 else {
            context.output.error(context.output.safe("\(file) has no conflict markers: nothing to resolve"))
            return 0
        }
        context.output.print(
            context.output.safe(
                "kept \(side.rawValue) in \(resolution.hunks) conflict\(plural(resolution.hunks)) of \(file); next: `git add \(PasteHint.shellWord(file))`"
            ))
        return 0
    }
}
