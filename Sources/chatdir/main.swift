import ChatCLI

#if canImport(Glibc)
import Glibc
#endif

// No Foundation here on purpose: `chatdir view` starts in a few milliseconds and a small
// resident size; the environment comes straight from `environ`.
var environment: [String: String] = [:]
var entry = environ
while let pointer = entry.pointee {
    let text = String(cString: pointer)
    if let equals = text.firstIndex(of: "=") {
        environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    entry += 1
}
exit(Chatdir.run(Array(CommandLine.arguments.dropFirst()), environment: environment))
