/// How a command that chatdir prints for the user to paste is spelled: `chatdir NAME`, then
/// `--store DIR` when the store is not the default one, so the pasted line acts on the same
/// store (`retry: chatdir retry --store /srv/chat carol ID`).
struct PasteHint: Sendable, Hashable {
    /// The store's path as typed for a shell, or nil for the default store (no `--store` needed).
    var store: String?

    /// The hint for the default store: `chatdir NAME REST`.
    static let defaultStore = PasteHint(store: nil)

    /// `chatdir name [--store DIR] rest`.
    func command(_ name: String, _ rest: String) -> String {
        var words = ["chatdir", name]
        if let store { words += ["--store", Self.shellWord(store)] }
        if !rest.isEmpty { words.append(rest) }
        return words.joined(separator: " ")
    }

    /// `text` as one shell word: unchanged when it holds only characters no shell treats
    /// specially, else in single quotes (a quote inside written `'\''`).
    static func shellWord(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "/", ".", "_", "-", "+", ",", ":", "@", "%": true
                default: false
                }
            }
        if plain { return text }
        return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }
}
