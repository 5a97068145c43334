import Foundation

/// What every test target needs: a scratch directory per test and the built executables.
/// (A target under Tests/ that only test targets depend on; nothing ships with it.)

/// A fresh directory under the system temp directory, removed when the test lets go of it.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL
    public var path: String { url.path }

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("chatdir-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A fresh directory in memory (`/dev/shm`, where fsync costs nothing) when there is one,
    /// else as ``init()``: for tests that run an operation hundreds of times over (a fault at
    /// every syscall) and prove its logic, not the disk's durability.
    public init(inMemory: Bool) throws {
        var isDirectory: ObjCBool = false
        let base =
            inMemory && FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory)
                && isDirectory.boolValue
            ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        url = base.appendingPathComponent("chatdir-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path inside the directory.
    public func file(_ relative: String) -> String { path + "/" + relative }
}

/// The project's root, found from this source file.
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// An executable product of this package (`chatdir`, `store-torture`) as SwiftPM built it for
/// this test run: next to the test bundle, whatever the build directory or configuration.
public func builtProduct(_ name: String) -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return packageRoot.appendingPathComponent(".build/debug/" + name)
}
