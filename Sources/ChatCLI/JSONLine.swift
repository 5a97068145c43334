import ChatDomain

/// One line of the CLI's JSON output (`--json`, `watch`): the exact values, with every
/// control and bidirectional override escaped as `\u…` so `jq` gets the text unchanged and
/// a terminal the line is printed on gets nothing it would act on.
enum JSONLine {
    static func encode(_ value: JSONValue) -> String {
        String(decoding: JSONWriter.encode(value, escaping: .terminalSafe), as: UTF8.self)
    }
}
