extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace, `OWS`).
    func trimmingSpacesAndTabs() -> String {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isWhitespace($0) }), let last = lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
