/// `value` in double quotes with control characters made visible, for error messages.
public func quoted(_ value: String) -> String {
    var out = "\""
    for scalar in value.unicodeScalars.prefix(80) {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    if value.unicodeScalars.count > 80 { out += "…" }
    return out + "\""
}
