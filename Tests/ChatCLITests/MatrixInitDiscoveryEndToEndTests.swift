import ChatTestSupport
import Foundation
import Testing

/// `chatdir init --user @alice:SERVER` without `--server` finds the homeserver as Matrix clients
/// do: `https://SERVER/.well-known/matrix/client`, served here by Python's `http.server` behind
/// Python's `ssl`, with a test CA the command is told to trust.
@Suite(
    .ownThreads,
    .enabled(if: TestCertificates.available && TLSPeer.pythonAvailable, "needs openssl and python3"))
struct MatrixInitDiscoveryEndToEndTests {
    /// A static web site over https on loopback: the user's server name.
    struct Site {
        let directory: TemporaryDirectory
        let certificates: TestCertificates
        let backend: TestProcess
        let tls: TLSPeer
        var port: Int { tls.port }

        init() throws {
            directory = try TemporaryDirectory()
            certificates = try TestCertificates(in: directory)
            let root = directory.file("site")
            try FileManager.default.createDirectory(
                atPath: root + "/.well-known/matrix", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: root + "/_matrix/client", withIntermediateDirectories: true)
            let portFile = directory.file("backend-port")
            let script = """
                import functools, http.server, os, sys
                handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
                with open(sys.argv[2] + ".tmp", "w") as f: f.write(str(server.server_address[1]))
                os.rename(sys.argv[2] + ".tmp", sys.argv[2])
                server.serve_forever()
                """
            backend = TestProcess()
            backend.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            backend.arguments = ["python3", "-c", script, root, portFile]
            backend.standardInput = FileHandle.nullDevice
            backend.standardOutput = FileHandle.nullDevice
            backend.standardError = FileHandle.nullDevice
            try backend.run()
            try waitUntil("python3's http.server says its port") { FileManager.default.fileExists(atPath: portFile) }
            let backendPort = try #require(Int(try String(contentsOfFile: portFile, encoding: .utf8)))
            tls = try TLSPeer.pythonTLSProxy(
                certificate: certificates.server, key: certificates.serverKey, backendPort: backendPort, in: directory)
        }

        func serve(_ path: String, _ text: String?) throws {
            let file = directory.file("site/" + path)
            if let text {
                try text.write(toFile: file, atomically: true, encoding: .utf8)
            } else {
                try? FileManager.default.removeItem(atPath: file)
            }
        }

        var user: String { "@alice:127.0.0.1:\(port)" }
    }

    @Test("the well-known's homeserver, once it answers /versions, is written into the new store")
    func found() throws {
        let site = try Site()
        defer { site.backend.terminate() }
        try site.serve(
            ".well-known/matrix/client", #"{"m.homeserver":{"base_url":"https://127.0.0.1:\#(site.port)/"}}"#)
        try site.serve("_matrix/client/versions", #"{"versions":["v1.11"]}"#)
        let store = site.directory.file("store")
        let result = try ChatdirProcess.run(
            ["init", "--user", site.user, store], environment: ["CHATDIR_CA_FILE": site.certificates.rootCA])
        #expect(result.status == 0, "\(result.stderr)")
        let manifest = try String(contentsOfFile: store + "/chatdir.json", encoding: .utf8)
        #expect(manifest.contains(#""server":"https://127.0.0.1:\#(site.port)""#), "\(manifest)")
        #expect(manifest.contains(#""protocol":"matrix""#))
    }

    @Test("a homeserver that does not answer, or a server not trusted: no store, the reason and --server said")
    func notFound() throws {
        let site = try Site()
        defer { site.backend.terminate() }
        try site.serve(".well-known/matrix/client", #"{"m.homeserver":{"base_url":"https://127.0.0.1:\#(site.port)"}}"#)
        try site.serve("_matrix/client/versions", nil)
        let store = site.directory.file("store")
        let missing = try ChatdirProcess.run(
            ["init", "--user", site.user, store], environment: ["CHATDIR_CA_FILE": site.certificates.rootCA])
        #expect(missing.status != 0)
        #expect(
            missing.stderr.contains("/.well-known/matrix/client") && missing.stderr.contains("--server"),
            "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))

        try site.serve("_matrix/client/versions", #"{"versions":["v1.11"]}"#)
        let untrusted = try ChatdirProcess.run(["init", "--user", site.user, store])
        #expect(untrusted.status != 0)
        #expect(
            untrusted.stderr.contains("certificate") && untrusted.stderr.contains("--server"), "\(untrusted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }
}
