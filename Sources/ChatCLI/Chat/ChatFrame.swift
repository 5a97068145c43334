/// One frame of the chat screen: the lines from the top (each fits the width) and where the
/// cursor stands, both 0-based (row 0 is the first line, column 0 the first cell).
struct ChatFrame: Hashable, Sendable {
    var lines: [String]
    var cursorRow: Int
    var cursorColumn: Int
}
