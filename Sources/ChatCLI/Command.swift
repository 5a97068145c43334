/// One subcommand.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    static func run(_ context: Context) throws -> Int32
}
