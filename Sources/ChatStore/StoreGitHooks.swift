import ChatSystem

/// The git hooks that give a store's files 0600 and directories 0700 back after git wrote
/// them: git keeps neither mode, and writes what a checkout, merge or rebase brings with the
/// umask's (0644 and 0755 under the usual 022), so without them a `git pull` leaves messages
/// readable by every user of the machine. docs/FORMAT.md, "Keeping a store in git".
public enum StoreGitHooks {
    /// The hooks git runs after it wrote the work tree: checkout and switch, merge and pull,
    /// rebase and amend (`githooks(5)`), and commit, which ends a merge that stopped on a
    /// conflict (git runs no post-merge then, and has written the merged files already).
    public static let names = ["post-checkout", "post-commit", "post-merge", "post-rewrite"]
    /// The line that marks a hook as chatdir's, so running `git-setup` again replaces it and
    /// never a hook of the user's own.
    public static let marker = "# Installed by chatdir git-setup"

    /// What ``install(in:command:)`` did with each hook.
    public struct Outcome: Sendable, Hashable {
        /// Hooks written (new, or chatdir's own with another command).
        public var written: [String] = []
        /// Hooks that exist and are not chatdir's: left exactly as they were.
        public var foreign: [String] = []
    }

    /// The script of each hook: runs `command` (a shell command line, from the top of the
    /// work tree where git runs hooks), ignoring its status, which git ignores too.
    public static func script(running command: String) -> String {
        """
        #!/bin/sh
        \(marker): git keeps neither mode 0600 nor 0700 and writes
        # files with the umask's, so after git wrote the work tree this gives the store's files
        # 0600 and directories 0700 back. `chatdir git-setup` rewrites this file; delete it to stop.
        \(command)

        """
    }

    /// Writes each hook of ``names`` into `directory` (git's hooks directory, made 0700 when
    /// missing) as an executable script running `command`. A hook chatdir wrote before is
    /// rewritten only when its text differs, so a second run changes nothing; a hook without
    /// the marker is the user's and is never touched.
    public static func install(in directory: String, command: String) throws(StoreError) -> Outcome {
        var outcome = Outcome()
        let text = Array(script(running: command).utf8)
        do { try DurableFile.makeDirectories(directory) } catch { throw .system(error) }
        for name in names {
            let path = directory + "/" + name
            if Sys.kind(of: path) != nil {
                let existing: [UInt8]
                do { existing = try Sys.readFile(path) } catch { throw .system(error) }
                guard String(decoding: existing, as: UTF8.self).contains(marker) else {
                    outcome.foreign.append(name)
                    continue
                }
                if existing == text, Sys.mode(of: path) == FileDescriptor.directoryMode { continue }
            }
            do {
                try DurableFile.write(text, to: name, in: directory)
                // 0700: executable, as git requires, and like every other file here the user's alone.
                try Sys.chmod(path, FileDescriptor.directoryMode)
            } catch {
                throw .system(error)
            }
            outcome.written.append(name)
        }
        return outcome
    }
}
