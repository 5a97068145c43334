import ChatTestSupport
import Foundation
import Testing

/// `make install PREFIX=…` and `make uninstall` against the binary this test run built
/// (`SWIFT_BUILD=` skips the release build, `BIN=` names the binary), and the systemd user unit
/// it installs, checked with `systemd-analyze verify`.
@Suite(.ownThreads) struct MakeInstallEndToEndTests {
    /// Every file `make install` puts under the prefix, with its mode.
    static let installed: [(path: String, mode: Int)] = [
        ("bin/chatdir", 0o755),
        ("share/man/man1/chatdir.1", 0o644),
        ("share/man/man5/chatdir-store.5", 0o644),
        ("share/bash-completion/completions/chatdir", 0o644),
        ("share/zsh/site-functions/_chatdir", 0o644),
        ("share/fish/vendor_completions.d/chatdir.fish", 0o644),
        ("share/systemd/user/chatdir-sync@.service", 0o644),
    ]

    static func make(_ target: String, prefix: String, _ more: [String] = []) throws -> ChatdirProcess.Result {
        try ChatdirProcess.run(
            [
                "-C", packageRoot.path, target, "PREFIX=\(prefix)", "SWIFT_BUILD=",
                "BIN=\(ChatdirProcess.executable.path)",
            ] + more,
            executable: URL(fileURLWithPath: "/usr/bin/make"))
    }

    /// The names of `binary`'s ELF sections, as `readelf -S` lists them.
    static func sections(_ binary: String) throws -> [String] {
        let listed = try ChatdirProcess.run(["-S", "-W", binary], executable: URL(fileURLWithPath: "/usr/bin/readelf"))
        return listed.stdout.split(separator: "\n").compactMap { line in
            line.split(separator: "]", maxSplits: 1).dropFirst().first?.split(separator: " ").first.map(String.init)
        }
    }

    static func size(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }

    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test(
        "make install puts the binary, both man pages, three completions and the unit in their places; uninstall removes them"
    )
    func installAndUninstall() throws {
        let directory = try TemporaryDirectory()
        let prefix = directory.file("prefix with space")
        let install = try Self.make("install", prefix: prefix)
        #expect(install.status == 0, "make install: \(install.stderr)")
        for file in Self.installed {
            let path = prefix + "/" + file.path
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == file.mode, "\(file.path) mode")
            #expect(((attributes[.size] as? Int) ?? 0) > 0, "\(file.path) is empty")
        }
        let version = try ChatdirProcess.run(["--version"], executable: URL(fileURLWithPath: prefix + "/bin/chatdir"))
        #expect(version.status == 0 && version.stdout.hasPrefix("chatdir "))
        #expect(try Self.text(prefix + "/share/man/man1/chatdir.1") == ChatdirProcess.run(["manual"]).stdout)
        #expect(
            try Self.text(prefix + "/share/man/man5/chatdir-store.5") == ChatdirProcess.run(["manual", "store"]).stdout)
        #expect(
            try Self.text(prefix + "/share/bash-completion/completions/chatdir")
                == ChatdirProcess.run(["completion", "bash"]).stdout)
        #expect(try Self.text(prefix + "/share/zsh/site-functions/_chatdir").hasPrefix("#compdef chatdir\n"))
        #expect(
            try Self.text(prefix + "/share/fish/vendor_completions.d/chatdir.fish").contains("complete -c chatdir "))
        let unit = try Self.text(prefix + "/share/systemd/user/chatdir-sync@.service")
        #expect(unit.contains("\nExecStart=\(prefix)/bin/chatdir sync --live --store %f --token-file %d/token\n"))
        #expect(!unit.contains("@BINDIR@"))

        let uninstall = try Self.make("uninstall", prefix: prefix)
        #expect(uninstall.status == 0, "make uninstall: \(uninstall.stderr)")
        for file in Self.installed {
            #expect(!FileManager.default.fileExists(atPath: prefix + "/" + file.path), "\(file.path) still there")
        }
    }

    @Test(
        "make install strips the binary of its symbols and debug information; STRIP= installs it as built",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/readelf"),
            "readelf is not installed (Debian package binutils)"))
    func strippedBinary() throws {
        let directory = try TemporaryDirectory()
        let built = ChatdirProcess.executable.path
        #expect(try Self.sections(built).contains(".debug_info"), "the test binary has no debug information to strip")

        let stripped = directory.file("stripped")
        #expect(try Self.make("install", prefix: stripped).status == 0)
        let sections = try Self.sections(stripped + "/bin/chatdir")
        #expect(!sections.contains { $0.hasPrefix(".debug_") } && !sections.contains(".symtab"), "\(sections)")
        // The debug build this test installs loses about 40 % (14.5 MB to 8.4 MB on 2026-12-06).
        #expect(try Self.size(stripped + "/bin/chatdir") < Self.size(built) * 3 / 4)
        // Swift's reflection metadata is not debug information: the stripped binary still works.
        let help = try ChatdirProcess.run(
            ["search", "--help"], executable: URL(fileURLWithPath: stripped + "/bin/chatdir"))
        #expect(help.status == 0 && help.stdout.contains("--ignore-case"))

        let debug = directory.file("debug")
        #expect(try Self.make("install", prefix: debug, ["STRIP="]).status == 0)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: debug + "/bin/chatdir"))
                == Data(contentsOf: URL(fileURLWithPath: built)))
    }

    @Test("the unit restarts on failure but not on the permanent exits, and never holds the token")
    func unitRules() throws {
        let unit = try Self.text(packageRoot.appendingPathComponent("contrib/systemd/chatdir-sync@.service").path)
        let lines = unit.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        #expect(lines.contains("Restart=on-failure"))
        let prevent = try #require(lines.first { $0.hasPrefix("RestartPreventExitStatus=") })
        let codes = Set(prevent.dropFirst("RestartPreventExitStatus=".count).split(separator: " ").map(String.init))
        #expect(
            codes.isSuperset(of: ["64", "65", "66", "77", "78"]),
            "usage, damaged store, no store, token refused, not configured: \(prevent)")
        #expect(
            codes.isDisjoint(with: ["70", "74", "76"]), "a bug, a full disk, a server's fault may pass: \(prevent)")
        #expect(!codes.contains("75"), "75 (try again later) must be restarted")
        #expect(lines.contains("LoadCredential=token:%E/chatdir/%i.token"))
        #expect(!lines.contains { $0.contains("CHATDIR_TOKEN") || $0.hasPrefix("Environment=") }, "a token in the unit")
        #expect(lines.contains { $0.hasPrefix("ExecStart=") && $0.contains(" --store %f ") })
    }

    /// `systemd-analyze --user verify` of `unit` installed as an instance for `store`; its stderr.
    static func verify(_ unit: String, in directory: TemporaryDirectory, prefix: String) throws -> ChatdirProcess.Result
    {
        let units = directory.file("units")
        let runtime = directory.file("runtime")
        try FileManager.default.createDirectory(atPath: units, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let instance = units + "/chatdir-sync@home-alice-chats.service"
        try Data(unit.utf8).write(to: URL(fileURLWithPath: instance))
        // MANPATH: Documentation=man:chatdir(1) is checked against the pages just installed.
        return try ChatdirProcess.run(
            ["--user", "verify", instance],
            environment: ["XDG_RUNTIME_DIR": runtime, "MANPATH": prefix + "/share/man", "HOME": directory.path],
            executable: URL(fileURLWithPath: "/usr/bin/systemd-analyze"))
    }

    @Test(
        "systemd-analyze verify accepts the installed unit without a word, and does flag a broken one",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"),
            "systemd-analyze is not installed (Debian package systemd)"))
    func systemdVerify() throws {
        let directory = try TemporaryDirectory()
        let prefix = directory.file("prefix")
        #expect(try Self.make("install", prefix: prefix).status == 0)
        let unit = try Self.text(prefix + "/share/systemd/user/chatdir-sync@.service")
        let verified = try Self.verify(unit, in: directory, prefix: prefix)
        #expect(verified.status == 0 && verified.stderr.isEmpty, "systemd-analyze verify: \(verified.stderr)")

        // The check can fail: a misspelt key and a binary that is not there are both reported.
        let broken = unit.replacing("RestartSec=", with: "RestartSecs=").replacing(
            prefix + "/bin/chatdir", with: prefix + "/bin/nothing")
        let flagged = try Self.verify(broken, in: directory, prefix: prefix)
        #expect(flagged.stderr.contains("Unknown key 'RestartSecs'"), "\(flagged.stderr)")
        #expect(flagged.stderr.contains("nothing"), "\(flagged.stderr)")
    }

    @Test("README's Install section shows make install PREFIX=~/.local, every installed file and the unit")
    func readme() throws {
        let readme = try Self.text(packageRoot.appendingPathComponent("README.md").path)
        let section = try #require(
            readme.components(separatedBy: "\n## Install\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        #expect(section.contains("make install PREFIX=~/.local"))
        #expect(section.contains("make uninstall PREFIX=~/.local"))
        #expect(section.contains("STRIP="), "README does not say how to install the binary with its debug information")
        for file in Self.installed {
            let name = file.path.split(separator: "/").last.map(String.init) ?? file.path
            #expect(section.contains(name), "README's Install section does not name \(file.path)")
        }
        #expect(section.contains("systemctl --user enable --now \"chatdir-sync@"))
    }
}
