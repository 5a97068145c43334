import ChatDomain

/// A config file chatdir cannot use, said with its file and line and the way out: exit 78
/// (EX_CONFIG). Never quotes a value that may be a secret (a `token` line's value).
struct ConfigFileError: Error, CustomStringConvertible {
    /// A line of the config file.
    struct Place {
        var file: String
        var line: Int
    }

    var message: String
    var description: String { message }
    var exitCode: Int32 { 78 }

    private init(_ place: Place, _ message: String) {
        self.message = "\(place.file):\(place.line): \(message)"
    }

    private init(file: String, _ message: String) {
        self.message = "\(file): \(message)"
    }

    static func unreadable(_ file: String, _ reason: String) -> Self {
        Self(file: file, "cannot read the config file: \(reason)")
    }

    static func tooLarge(_ file: String) -> Self {
        Self(
            file: file, "larger than \(ConfigFile.maxSize >> 10) KiB, which no chatdir config is; is it the right file?"
        )
    }

    static func notUTF8(_ place: Place) -> Self {
        Self(place, "not UTF-8 text; save the file as UTF-8")
    }

    static func controlCharacter(_ place: Place) -> Self {
        Self(place, "contains a control character (not shown); a config line is printable text")
    }

    static func badSection(_ place: Place) -> Self {
        Self(place, "a section is `[store PATH]`, the store's directory, like `[store ~/chats]`")
    }

    static func repeatedSection(_ place: Place, _ path: String, earlier: Int) -> Self {
        Self(place, "a second section for the store \(path) (the first is on line \(earlier)); merge them")
    }

    static func notAnEntry(_ place: Place) -> Self {
        Self(place, "expected `key = value`, `[store PATH]` or a `#` comment")
    }

    static func tokenInConfig(_ place: Place) -> Self {
        Self(
            place,
            "tokens never go in the config file; put the token in a file of its own (mode 0600) and write `token-file = FILE`, or write `token-command = COMMAND` (like `pass show chat/alice`)"
        )
    }

    static func unknownKey(_ place: Place, _ key: String, known: [String], inSection: Bool) -> Self {
        let own = inSection ? ConfigFile.topKeys : ConfigFile.storeKeys
        let elsewhere =
            own.contains(key)
            ? (inSection ? "; `\(key)` goes above the first section" : "; `\(key)` goes in a `[store PATH]` section")
            : ""
        return Self(
            place,
            "unknown key \(quoted(key)) here; known keys \(inSection ? "in a [store PATH] section" : "above the first section"): \(known.joined(separator: ", "))\(elsewhere)"
        )
    }

    static func noValue(_ place: Place, _ key: String) -> Self {
        Self(place, "`\(key)` has no value; write `\(key) = …` or remove the line")
    }

    static func badServer(_ place: Place, _ reason: String) -> Self {
        Self(place, "server: \(reason)")
    }

    static func repeatedKey(_ place: Place, _ key: String, earlier: Int) -> Self {
        Self(place, "`\(key)` is given twice (also on line \(earlier)); keep one")
    }

    static func twoTokenSources(_ place: Place, _ key: String, _ other: String, earlier: Int) -> Self {
        Self(place, "`\(key)` and `\(other)` (line \(earlier)) both give the token; keep one")
    }

    static func noHome(_ place: Place, _ key: String) -> Self {
        Self(place, "\(key): `~` needs $HOME, which is not set to an absolute path; write the full path")
    }

    static func relativePath(_ place: Place, _ key: String, _ value: String) -> Self {
        Self(place, "\(key): \(quoted(value)) is a relative path; write an absolute path or one starting with ~/")
    }
}
