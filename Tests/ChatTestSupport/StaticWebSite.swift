import Foundation
import Testing

/// Python's `http.server` on a loopback port of its own, serving the files of a temporary
/// directory: a web server no one here wrote (a Matrix server name's `/.well-known`, say).
/// Stopped when released.
public final class StaticWebSite: @unchecked Sendable {
    /// The directory whose files are served (its `site/` subdirectory is the web root).
    public let directory: TemporaryDirectory
    public let port: Int
    private let process: TestProcess

    public init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("site"), withIntermediateDirectories: true)
        let portFile = directory.file("port")
        let script = """
            import functools, http.server, os, sys
            handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            with open(sys.argv[2] + ".tmp", "w") as f: f.write(str(server.server_address[1]))
            os.rename(sys.argv[2] + ".tmp", sys.argv[2])
            server.serve_forever()
            """
        process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, directory.file("site"), portFile]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try waitUntil("python3's http.server says its port") { FileManager.default.fileExists(atPath: portFile) }
        port = try #require(Int(try String(contentsOfFile: portFile, encoding: .utf8)))
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    /// Serves `text` at `path` (relative to the web root, directories made), or nothing there
    /// (a 404) when nil.
    public func serve(_ path: String, _ text: String?) throws {
        let file = directory.file("site/" + path)
        guard let text else {
            try? FileManager.default.removeItem(atPath: file)
            return
        }
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
    }
}
