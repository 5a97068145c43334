/// Where a value sits in an answer, built as the decoder descends and written out only when a
/// refusal names it (`rooms.join.!abc.timeline.events[3]`).
indirect enum MatrixPath: Sendable {
    case root
    case key(MatrixPath, String)
    case index(MatrixPath, Int)

    /// The path as the JSON reads: keys joined by `.`, array positions as `[n]`, each key on one
    /// line and cut short (a key is the server's text: a room ID, a user ID, anything).
    var description: String {
        switch self {
        case .root: ""
        case .key(.root, let key): MatrixText.oneLine(key, maxLength: 80)
        case .key(let parent, let key): parent.description + "." + MatrixText.oneLine(key, maxLength: 80)
        case .index(let parent, let index): parent.description + "[\(index)]"
        }
    }
}
