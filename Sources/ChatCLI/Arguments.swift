/// Parsed arguments: options by name (the last one wins), flags, positionals in order.
///
/// Options and flags are kept in arrays, searched in order: a command line has a few, and the
/// first `String`-keyed dictionary or set a process makes costs a scan of every protocol
/// conformance in the binary (about 140,000 instructions, 5 % of `chatdir view`).
struct ParsedArguments {
    var command: String
    /// Every option given with its value, in the order given (`--member bob --member carol`).
    var options: [(name: String, value: String)] = []
    var flags: [String] = []
    var positionals: [String] = []
    var wantsHelp = false

    /// Parses `arguments` against `spec`. `--name=value` and `--name value` both work; `--`
    /// ends options. Unknown options and missing values are usage errors naming the argument.
    init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        command = spec.name
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            // A dash then a digit (`-1 from me`) is text or a number: no option starts with a digit.
            if optionsEnded || !argument.hasPrefix("-") || argument == "-"
                || argument.dropFirst().first?.isNumber == true
            {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                wantsHelp = true
                continue
            }
            if !argument.hasPrefix("--"), spec.allOptions.contains(where: { $0.short != nil }) {
                index = try shortOptions(argument, spec: spec, next: index, in: arguments)
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = spec.allOptions.first(where: { $0.name == name }) else {
                throw Self.unknown(name, spec: spec)
            }
            if let placeholder = option.value {
                if let inlineValue {
                    options.append((name, inlineValue))
                } else if index < arguments.count {
                    options.append((name, arguments[index]))
                    index += 1
                } else {
                    throw UsageError(message: "\(name) needs a value (\(name) \(placeholder))", command: spec.name)
                }
            } else {
                if inlineValue != nil { throw UsageError(message: "\(name) takes no value", command: spec.name) }
                if !flags.contains(name) { flags.append(name) }
            }
        }
    }

    /// One word of short options as grep reads them: letters that are flags combine (`-ic`), and
    /// a letter that takes a value takes the rest of the word (`-m5`) or else the next argument
    /// (`-m 5`). Each is stored under its long name. Returns the index of the next argument.
    private mutating func shortOptions(_ word: String, spec: CommandSpec, next: Int, in arguments: [String])
        throws(UsageError) -> Int
    {
        var index = next
        var letters = word.dropFirst()
        while let letter = letters.popFirst() {
            if letter == "h" {
                wantsHelp = true
                continue
            }
            guard let option = spec.allOptions.first(where: { $0.short == letter }) else {
                throw Self.unknown(letters.isEmpty && word.count == 2 ? word : "-\(letter) (in \(word))", spec: spec)
            }
            guard let placeholder = option.value else {
                if !flags.contains(option.name) { flags.append(option.name) }
                continue
            }
            if !letters.isEmpty {
                options.append((option.name, String(letters)))
            } else if index < arguments.count {
                options.append((option.name, arguments[index]))
                index += 1
            } else {
                throw UsageError(message: "-\(letter) needs a value (-\(letter) \(placeholder))", command: spec.name)
            }
            return index
        }
        return index
    }

    /// The usage error for an option `spec` does not have: the nearest known ones when one is
    /// close (a typo), and the command's usage line rather than the whole help.
    static func unknown(_ name: String, spec: CommandSpec) -> UsageError {
        let known = spec.allOptions.map(\.name)
        let typed = String(name.prefix { $0 != " " })
        let nearest = typed.hasPrefix("--") ? Suggestion.closest(to: typed, among: known) : []
        guard let question = Suggestion.question(nearest) else {
            return UsageError(
                message:
                    "unknown option \(name) for `chatdir \(spec.name)`; if it is not meant as an option, put -- before it",
                command: spec.name, usage: spec.usageLine())
        }
        return UsageError(
            message: "unknown option \(name); \(question)", command: spec.name,
            usage: spec.usageLine(mentioning: nearest.first))
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The last value given for `name`.
    func value(_ name: String) -> String? { options.last { $0.name == name }?.value }

    /// Every value given for an option that may be repeated, in order.
    func allValues(_ name: String) -> [String] { options.filter { $0.name == name }.map(\.value) }

    /// An integer option within `range`, or nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                message:
                    "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text.debugDescription)",
                command: command)
        }
        return number
    }

    /// Fails when there are more positionals than `count`.
    func expectAtMost(_ count: Int) throws(UsageError) {
        if positionals.count > count {
            throw UsageError(message: "unexpected argument \(positionals[count].debugDescription)", command: command)
        }
    }

    func positional(_ index: Int, _ placeholder: String) throws(UsageError) -> String {
        guard index < positionals.count else {
            throw UsageError(message: "missing \(placeholder)", command: command)
        }
        return positionals[index]
    }
}
