import ChatTestSupport
import Foundation
import Testing

@testable import ChatCLI

/// `chatdir completion bash` driven as bash drives it: the script is sourced in a child bash
/// with a temp HOME, `COMP_WORDS`/`COMP_CWORD` set as for a TAB, and `COMPREPLY` read back.
@Suite(.ownThreads) struct CompletionEndToEndTests {
    /// A temp HOME with the printed bash script and a copy of SampleData/alice as the store.
    struct Shell {
        let directory: TemporaryDirectory
        let script: String
        let store: String

        init(sourceLocation: SourceLocation = #_sourceLocation) throws {
            directory = try TemporaryDirectory()
            store = try copyStore(packageRoot.appendingPathComponent("SampleData/alice"), into: directory)
            let printed = try ChatdirProcess.run(["completion", "bash"])
            #expect(printed.status == 0, "chatdir completion bash: \(printed.stderr)", sourceLocation: sourceLocation)
            script = directory.file("chatdir.bash")
            try Data(printed.stdout.utf8).write(to: URL(fileURLWithPath: script))
        }

        /// Runs `body` in bash after sourcing the script; returns its stdout lines.
        func bash(
            _ body: String, environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> [String] {
            var env = ["HOME": directory.path, "CHATDIR_STORE": store, "XDG_DATA_HOME": ""]
            for (key, value) in environment { env[key] = value }
            let result = try ChatdirProcess.run(
                ["--norc", "--noprofile", "-c", "source \(script.debugDescription) && \(body)"],
                environment: env, executable: URL(fileURLWithPath: "/bin/bash"))
            #expect(
                result.status == 0 && result.stderr.isEmpty, "bash: \(result.stderr)", sourceLocation: sourceLocation)
            return result.lines
        }

        /// What TAB offers after `words` (the last one is the word being completed, "" for a new one).
        func complete(
            _ words: [String], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> [String] {
            let array = words.map { "'" + $0 + "'" }.joined(separator: " ")
            return try bash(
                "COMP_WORDS=(\(array)); COMP_CWORD=\(words.count - 1); _chatdir; printf '%s\\n' \"${COMPREPLY[@]}\" | sort | sed '/^$/d'",
                environment: environment, sourceLocation: sourceLocation)
        }
    }

    @Test("sourcing the bash script registers _chatdir for chatdir")
    func registers() throws {
        #expect(try Shell().bash("complete -p chatdir") == ["complete -F _chatdir chatdir"])
    }

    @Test("chatdir vi<TAB> completes to view, and a bare TAB lists every command")
    func commands() throws {
        let shell = try Shell()
        #expect(try shell.complete(["chatdir", "vi"]) == ["view"])
        let all = try shell.complete(["chatdir", ""])
        #expect(Set(Chatdir.commands.map { $0.spec.name }).isSubset(of: Set(all)))
    }

    @Test("chatdir view <TAB> offers the store's conversation IDs, and none after the first")
    func conversations() throws {
        let shell = try Shell()
        #expect(try shell.complete(["chatdir", "view", ""]) == ["bob", "carol", "dinner"])
        #expect(try shell.complete(["chatdir", "send", "d"]) == ["dinner"])
        #expect(try shell.complete(["chatdir", "view", "--limit", "5", ""]) == ["bob", "carol", "dinner"])
        #expect(try shell.complete(["chatdir", "view", "dinner", ""]) == [])
    }

    @Test("the conversation IDs come from the store named by --store on the line, before CHATDIR_STORE")
    func storeOnTheLine() throws {
        let shell = try Shell()
        let other = shell.directory.file("other")
        try FileManager.default.createDirectory(
            atPath: other + "/conversations/zeta", withIntermediateDirectories: true)
        #expect(try shell.complete(["chatdir", "view", "--store", other, ""]) == ["zeta"])
        #expect(
            try shell.complete(
                ["chatdir", "read", ""],
                environment: ["CHATDIR_STORE": "", "XDG_DATA_HOME": shell.directory.path + "/xdg"]) == [])
        try FileManager.default.createDirectory(
            atPath: shell.directory.path + "/xdg/chatdir/conversations/kappa", withIntermediateDirectories: true)
        #expect(
            try shell.complete(
                ["chatdir", "read", ""],
                environment: ["CHATDIR_STORE": "", "XDG_DATA_HOME": shell.directory.path + "/xdg"]) == ["kappa"])
    }

    @Test("without --store or CHATDIR_STORE the IDs come from the config file's store (~/ expanded), not a section's")
    func storeFromConfig() throws {
        let shell = try Shell()
        let home = shell.directory.path
        try FileManager.default.createDirectory(
            atPath: home + "/chats/work/conversations/omega", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: home + "/cfg/chatdir", withIntermediateDirectories: true)
        let config = "# the default store\n  store =  ~/chats/work  \r\n\n[store \(shell.store)]\nstore = /elsewhere\n"
        try Data(config.utf8).write(to: URL(fileURLWithPath: home + "/cfg/chatdir/config"))
        let configured = ["CHATDIR_STORE": "", "XDG_CONFIG_HOME": home + "/cfg", "XDG_DATA_HOME": home + "/xdg"]
        #expect(try shell.complete(["chatdir", "view", ""], environment: configured) == ["omega"])
        // The environment and the line still come first, as for chatdir itself.
        var withEnvironment = configured
        withEnvironment["CHATDIR_STORE"] = shell.store
        #expect(
            try shell.complete(["chatdir", "view", ""], environment: withEnvironment) == ["bob", "carol", "dinner"])
        #expect(
            try shell.complete(["chatdir", "view", "--store", shell.store, ""], environment: configured) == [
                "bob", "carol", "dinner",
            ])
        // A config with no top-level store: the default store.
        try Data("[store \(shell.store)]\nserver = http://127.0.0.1:1\n".utf8).write(
            to: URL(fileURLWithPath: home + "/cfg/chatdir/config"))
        try FileManager.default.createDirectory(
            atPath: home + "/xdg/chatdir/conversations/kappa", withIntermediateDirectories: true)
        #expect(try shell.complete(["chatdir", "view", ""], environment: configured) == ["kappa"])
    }

    @Test("every command's options in --help are offered after --, and option values and shells complete")
    func options() throws {
        let shell = try Shell()
        for command in Chatdir.commands {
            let offered = try shell.complete(["chatdir", command.spec.name, "--"])
            #expect(offered == command.spec.allOptions.map(\.name).sorted(), "chatdir \(command.spec.name) --<TAB>")
        }
        #expect(try shell.complete(["chatdir", "view", "--li"]) == ["--limit"])
        #expect(try shell.complete(["chatdir", "completion", ""]) == ["bash", "fish", "zsh"])
        #expect(try shell.complete(["chatdir", "view", "--limit", ""]) == [])
        // search's grep letters: offered after a dash, and -m takes a value as --limit does.
        #expect(
            Set(try shell.complete(["chatdir", "search", "-"])).isSuperset(of: [
                "-E", "-F", "-c", "-i", "-m", "--ignore-case",
            ]))
        #expect(try shell.complete(["chatdir", "search", "-m", ""]) == [])
        try FileManager.default.createDirectory(
            atPath: shell.directory.file("stores-here"), withIntermediateDirectories: true)
        #expect(
            try shell.complete(["chatdir", "list", "--store", shell.directory.file("stores-")]) == [
                shell.directory.file("stores-here")
            ])
    }

    @Test("an unknown shell is a usage error naming the three it knows")
    func unknownShell() throws {
        let result = try ChatdirProcess.run(["completion", "tcsh"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("\"tcsh\"") && result.stderr.contains("bash, zsh or fish"))
        #expect(result.stdout.isEmpty)
    }

    @Test("the zsh script is a #compdef file with an _arguments table for every command and option")
    func zshShape() {
        let script = ZshCompletion.script()
        #expect(script.hasPrefix("#compdef chatdir\n"))
        #expect(script.hasSuffix("_chatdir \"$@\"\n"))
        for command in Chatdir.commands {
            #expect(
                script.contains("        \(command.spec.name))\n            _arguments \\\n"),
                "zsh case for \(command.spec.name)")
            #expect(script.contains("'\(command.spec.name):"), "zsh command list entry for \(command.spec.name)")
            for option in command.spec.allOptions {
                let spelled =
                    option.short.map { "'(-\($0) \(option.name))'{-\($0),\(option.name)}'[" } ?? "'\(option.name)["
                #expect(script.contains(spelled), "zsh \(command.spec.name) \(option.name)")
            }
        }
        #expect(
            script.contains(
                "'--store[the store directory (default, $CHATDIR_STORE, else store in the config file, else $XDG_DATA_HOME/chatdir or ~/.local/share/chatdir)]:DIR:_files -/'"
            ))
        #expect(script.contains("'1:conversation:_chatdir_conversations'"))
        // Balanced single quotes on every line: an unbalanced one breaks the whole file in zsh.
        for line in script.split(separator: "\n") {
            #expect(line.replacing("'\\''", with: "").filter { $0 == "'" }.count % 2 == 0, "unbalanced quote: \(line)")
        }
    }

    @Test("the fish script has a complete line for every command and every option it takes")
    func fishShape() {
        let script = FishCompletion.script()
        let lines = script.split(separator: "\n").map(String.init)
        for command in Chatdir.commands {
            #expect(
                lines.contains {
                    $0.hasPrefix("complete -c chatdir -n __fish_use_subcommand -a \(command.spec.name) -d '")
                })
            for option in command.spec.allOptions {
                let prefix =
                    "complete -c chatdir -n '__fish_seen_subcommand_from \(command.spec.name)' -l \(option.name.dropFirst(2))"
                #expect(lines.contains { $0.hasPrefix(prefix + " ") }, "fish \(command.spec.name) \(option.name)")
            }
        }
        #expect(
            lines.contains(
                "complete -c chatdir -n '__fish_seen_subcommand_from view' -a '(__chatdir_conversations)' -d conversation"
            ))
        #expect(
            lines.contains { $0.hasPrefix("complete -c chatdir -n '__fish_seen_subcommand_from view' -l limit -x -d ") }
        )
        #expect(
            lines.contains {
                $0.hasPrefix("complete -c chatdir -n '__fish_seen_subcommand_from search' -l ignore-case -s i -d ")
            })
        #expect(
            lines.contains {
                $0.hasPrefix("complete -c chatdir -n '__fish_seen_subcommand_from search' -l limit -s m -x -d ")
            })
        #expect(
            lines.contains {
                $0.hasPrefix(
                    "complete -c chatdir -n '__fish_seen_subcommand_from serve' -l data -r -a '(__fish_complete_directories)'"
                )
            })
    }
}
