import ChatTestSupport
import Foundation
import Testing

@testable import ChatCLI

/// `chatdir manual` and `chatdir manual store`, rendered by groff as man(1) would, with every
/// warning turned on (`-ww`): any warning fails.
@Suite(.ownThreads) struct ManualEndToEndTests {
    /// Renders `roff` with `groff -man -Tutf8 -ww` as plain text (no overstrike); expects no warning.
    static func render(_ roff: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (
        text: String, warnings: String
    ) {
        let result = try ChatdirProcess.run(
            ["-man", "-Tutf8", "-ww", "-P-cbou"], input: roff, executable: URL(fileURLWithPath: "/usr/bin/groff"))
        #expect(result.status == 0, "groff exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        return (result.stdout, result.stderr)
    }

    static func page(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let printed = try ChatdirProcess.run(arguments)
        #expect(
            printed.status == 0 && printed.stderr.isEmpty, "chatdir \(arguments): \(printed.stderr)",
            sourceLocation: sourceLocation)
        return printed.stdout
    }

    @Test("the check catches a warning: groff -ww reports an undefined macro on stderr")
    func checkCanFail() throws {
        let rendered = try Self.render(".TH X 1\n.SH NAME\nx\n.notamacro\n")
        #expect(rendered.warnings.contains("warning: macro 'notamacro' not defined"))
    }

    @Test("chatdir manual renders without a warning and has every section, command, option and exit code")
    func commandPage() throws {
        let roff = try Self.page(["manual"])
        #expect(roff.contains("\n.TH CHATDIR 1 "))
        let rendered = try Self.render(roff)
        #expect(rendered.warnings.isEmpty, "groff warnings:\n\(rendered.warnings)")
        let text = rendered.text
        for section in [
            "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES",
            "MATRIX", "SEE ALSO",
        ] {
            #expect(text.contains("\n\(section)\n"), "section \(section)")
        }
        // What a Matrix store's ticks can say, however groff wraps it.
        let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("Ticks: ✓ sent and ✓✓ read"))
        #expect(flat.contains("a Matrix store never shows ✓✓ delivered"))
        for command in Chatdir.commands {
            let spec = command.spec
            #expect(text.contains("\n   chatdir \(spec.name)\n"), "subsection for \(spec.name)")
            for usage in spec.usage {
                #expect(text.contains("chatdir \(spec.name) \(usage)"), "usage of \(spec.name): \(usage)")
            }
            for option in spec.options {
                let named = (option.short.map { "-\($0), " } ?? "") + option.name
                #expect(text.contains("\n       \(named)"), "\(spec.name) \(named)")
            }
        }
        // Each code and its meaning, however groff wraps the meaning.
        let exitStatus = try #require(
            text.components(separatedBy: "\nEXIT STATUS\n").dropFirst().first?.components(
                separatedBy: "\nENVIRONMENT\n"
            ).first)
        let words = exitStatus.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for row in ExitStatusTable.rows {
            #expect(words.contains("\(row.code) " + row.meaning.replacing("`", with: "")), "exit code \(row.code)")
        }
        for variable in ["CHATDIR_STORE", "CHATDIR_TOKEN", "XDG_DATA_HOME", "NO_COLOR"] {
            #expect(text.contains("\n       \(variable)\n"))
        }
        // An installed page stands on its own: make install ships no checkout to refer to, and
        // the users file serve needs is described here.
        for outside in ["SampleData", "docs/", "README", "../"] {
            #expect(!text.contains(outside), "chatdir(1) refers to \(outside)")
        }
        #expect(text.contains("DATA/users.json") && text.contains("{\"token\":\"...\",\"userId\":\"alice\"}"))
        #expect(text.contains("chatdir serve --init DIR --user NAME [--user NAME...]"))
        // Non-ASCII from --help (the ticks) arrives as the characters, not as mojibake.
        #expect(text.contains("◷ pending, ✗ failed"))
    }

    @Test("the exit codes in the manual are README's and --help's, word for word")
    func exitCodesMatchReadme() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for row in ExitStatusTable.rows {
            guard row.code != 0 else { continue }
            #expect(
                readme.contains("\(row.code) \(row.meaning)"), "README's exit codes lack \"\(row.code) \(row.meaning)\""
            )
            if row.code != 130 {
                #expect(
                    Chatdir.help.split(whereSeparator: \.isWhitespace).contains("\(row.code)"),
                    "chatdir --help lacks exit code \(row.code)")
            }
        }
    }

    @Test("chatdir manual store renders docs/FORMAT.md without a warning, every section of it")
    func storePage() throws {
        let roff = try Self.page(["manual", "store"])
        #expect(roff.contains("\n.TH CHATDIR\\-STORE 5 "))
        let rendered = try Self.render(roff)
        #expect(rendered.warnings.isEmpty, "groff warnings:\n\(rendered.warnings)")
        let format = try String(contentsOf: packageRoot.appendingPathComponent("docs/FORMAT.md"), encoding: .utf8)
        for line in format.split(separator: "\n") where line.hasPrefix("## ") {
            #expect(rendered.text.contains("\n" + line.dropFirst(3).uppercased() + "\n"), "section \(line)")
        }
        #expect(rendered.text.contains("outbox/<ordinal>-<client-message-id>.json"))
        // An installed page stands on its own: make install ships no checkout to refer to.
        for outside in ["shared/", "../", "docs/", "SampleData", "README"] {
            #expect(!rendered.text.contains(outside), "chatdir-store(5) refers to \(outside)")
        }
        #expect(rendered.text.contains("\n   The largest sequence\n"))
    }

    @Test("the built-in copy of docs/FORMAT.md is current (else run scripts/embed-format.sh)")
    func formatCopyIsCurrent() throws {
        let format = try String(contentsOf: packageRoot.appendingPathComponent("docs/FORMAT.md"), encoding: .utf8)
        #expect(
            FormatDocument.markdown + "\n" == format,
            "docs/FORMAT.md changed: run scripts/embed-format.sh and commit Sources/ChatCLI/Manual/FormatDocument.swift"
        )
    }

    @Test("man -l reads the page as a man page would be read after install")
    func manReadsIt() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("chatdir.1")
        try Data(try Self.page(["manual"]).utf8).write(to: URL(fileURLWithPath: file))
        let result = try ChatdirProcess.run(
            ["-l", file], environment: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80"],
            executable: URL(fileURLWithPath: "/usr/bin/man"))
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "man -l: \(result.stderr)")
        #expect(result.stdout.contains("EXIT STATUS"))
    }

    @Test("an unknown page is a usage error that names the two there are")
    func unknownPage() throws {
        let result = try ChatdirProcess.run(["manual", "sync"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("\"sync\"") && result.stderr.contains("chatdir-store(5)"))
    }
}
