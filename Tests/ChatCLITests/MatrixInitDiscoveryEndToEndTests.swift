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
        let web: StaticWebSite
        let tls: TLSPeer
        var port: Int { tls.port }

        init() throws {
            directory = try TemporaryDirectory()
            certificates = try TestCertificates(in: directory)
            web = try StaticWebSite()
            tls = try TLSPeer.pythonTLSProxy(
                certificate: certificates.server, key: certificates.serverKey, backendPort: web.port, in: directory)
        }

        func serve(_ path: String, _ text: String?) throws { try web.serve(path, text) }

        var user: String { "@alice:127.0.0.1:\(port)" }
    }

    @Test("the well-known's homeserver, once it answers /versions, is written into the new store")
    func found() throws {
        let site = try Site()
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
