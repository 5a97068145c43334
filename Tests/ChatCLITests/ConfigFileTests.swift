import Testing

@testable import ChatCLI

@Suite struct ConfigFileTests {
    static func parse(_ text: String) throws(ConfigFileError) -> ConfigFile {
        try ConfigFile.parse(Array(text.utf8), path: "/home/me/.config/chatdir/config", home: "/home/me")
    }

    @Test("the default store, and a section per store with its keys; ~/ is expanded, trailing slashes go")
    func good() throws {
        let config = try Self.parse(
            """
            # chatdir settings
            store = ~/chats/work/

              [store ~/chats/work]
            token-command = pass show chat/alice
            ca-file = ~/ca.pem

            [ store /srv/home ]
            token-file=/home/me/.config/chatdir/home-token\r
            server = https://chat.example

            """)
        #expect(config.exists)
        #expect(config.defaultStore == ConfigFile.Entry(value: "/home/me/chats/work", line: 2))
        #expect(config.stores.map(\.path) == ["/home/me/chats/work", "/srv/home"])
        let work = try #require(config.section(for: "/home/me/chats/work/"))
        #expect(work.entries["token-command"] == ConfigFile.Entry(value: "pass show chat/alice", line: 5))
        #expect(work.entries["ca-file"]?.value == "/home/me/ca.pem")
        let home = try #require(config.section(for: "/srv/home"))
        #expect(home.entries["token-file"] == ConfigFile.Entry(value: "/home/me/.config/chatdir/home-token", line: 9))
        #expect(home.entries["server"]?.value == "https://chat.example")
        #expect(config.section(for: "/srv/other") == nil)
    }

    @Test("an empty file and one of comments only are empty configs")
    func empty() throws {
        #expect(try Self.parse("").stores.isEmpty)
        #expect(try Self.parse("# nothing\n\n   # here\n").defaultStore == nil)
    }

    static let broken: [(text: String, error: String)] = [
        (
            "store = ~/a\n[store ~/a]\ntoken = s3cret\n",
            ":3: tokens never go in the config file; put the token in a file of its own (mode 0600)"
        ),
        (
            "[store ~/a]\ntoken-cmd = pass\n",
            ":2: unknown key \"token-cmd\" here; known keys in a [store PATH] section: ca-file, server, token-command, token-file"
        ),
        (
            "server = http://x:1\n",
            ":1: unknown key \"server\" here; known keys above the first section: store; `server` goes in a `[store PATH]` section"
        ),
        (
            "[store ~/a]\nstore = ~/b\n",
            ":2: unknown key \"store\" here; known keys in a [store PATH] section: ca-file, server, token-command, token-file; `store` goes above the first section"
        ),
        ("\n\njust words\n", ":3: expected `key = value`, `[store PATH]` or a `#` comment"),
        ("[store]\n", ":1: a section is `[store PATH]`"),
        ("[account ~/a]\n", ":1: a section is `[store PATH]`"),
        ("[store ~/a\n", ":1: a section is `[store PATH]`"),
        ("store = chats\n", ":1: store: \"chats\" is a relative path; write an absolute path or one starting with ~/"),
        ("[store ~/a]\nserver = ftp://x\n", ":2: server: "),
        ("[store ~/a]\nserver =\n", ":2: `server` has no value"),
        ("[store ~/a]\nca-file = /a\nca-file = /b\n", ":3: `ca-file` is given twice (also on line 2); keep one"),
        (
            "[store ~/a]\ntoken-file = /t\ntoken-command = pass\n",
            ":3: `token-command` and `token-file` (line 2) both give the token; keep one"
        ),
        (
            "[store ~/a]\n[store /home/me/a/]\n",
            ":2: a second section for the store /home/me/a (the first is on line 1); merge them"
        ),
        ("store = /a\u{1B}[2J\n", ":1: contains a control character (not shown)"),
    ]

    @Test("every problem names the file and line and what is wrong", arguments: broken)
    func errors(_ text: String, _ error: String) {
        let thrown = #expect(throws: ConfigFileError.self) { try Self.parse(text) }
        let message = thrown?.message ?? ""
        let line = error.prefix { $0 != " " }
        #expect(message.hasPrefix("/home/me/.config/chatdir/config" + line), "\(message)")
        #expect(message.contains(error.dropFirst(line.count + 1)), "\(message)")
    }

    @Test("a token's value is never in the error")
    func tokenNotEchoed() {
        let thrown = #expect(throws: ConfigFileError.self) { try Self.parse("[store ~/a]\ntoken = s3cret-value\n") }
        #expect(thrown?.message.contains("s3cret") == false)
    }

    @Test("bytes that are not UTF-8 are refused with their line")
    func notUTF8() {
        var bytes = Array("# ok\nstore = /a".utf8)
        bytes += [0xFF, 0x0A]
        let thrown = #expect(throws: ConfigFileError.self) { try ConfigFile.parse(bytes, path: "/c", home: "/h") }
        #expect(thrown?.message == "/c:2: not UTF-8 text; save the file as UTF-8")
    }

    @Test("the file is under $XDG_CONFIG_HOME when it is absolute, else ~/.config")
    func location() {
        #expect(ConfigFile.location(["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/chatdir/config")
        #expect(ConfigFile.location(["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/chatdir/config")
        #expect(ConfigFile.location(["HOME": "/h"]) == "/h/.config/chatdir/config")
    }
}
