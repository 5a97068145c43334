/// Environment variables by name: this process's own, read where a command asks for one, or a
/// given set (tests, a child's environment).
///
/// A command asks for a handful of names (`HOME`, `NO_COLOR`, `CHATDIR_STORE`…), so the
/// process's environment is not copied into a dictionary at start: that was 164,000 of `view`'s
/// 1.8 M instructions (a `String` and a hash for every variable of the shell's 30 to 100).
public struct Environment: Sendable, ExpressibleByDictionaryLiteral {
    /// nil: this process's environment, looked up with getenv(3) (`Sys.environment`; chatdir never changes it).
    private let given: [String: String]?

    /// This process's environment.
    public static var process: Environment { Environment(given: nil) }

    private init(given: [String: String]?) {
        self.given = given
    }

    /// Exactly `variables`, whatever the process has.
    public init(_ variables: [String: String]) {
        given = variables
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        given = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    /// The value of `name`, or nil when it is not set.
    public subscript(name: String) -> String? {
        if let given { return given[name] }
        return Sys.environment(name)
    }

    /// Every variable, for a child process that inherits them.
    public var variables: [String: String] {
        given ?? Sys.processEnvironment()
    }
}
