import ChatTestSupport
import Foundation

/// Certificates made for one test by the `openssl` command line, in the test's own directory:
/// a test root CA, and server certificates for `IP:127.0.0.1,DNS:localhost` (good, expired,
/// signed by another CA) and for another host name. Every leaf shares one key (`server.key`).
struct TestCertificates {
    /// PEM files, by what they are.
    let rootCA: String
    let otherRootCA: String
    let serverKey: String
    let server: String
    let wrongHost: String
    let expired: String
    let otherCA: String

    /// Whether the openssl command line is on this machine (CI has it; the image ships it).
    static var available: Bool { FileManager.default.isExecutableFile(atPath: openssl.path) }
    static let openssl = URL(fileURLWithPath: "/usr/bin/openssl")

    init(in directory: TemporaryDirectory) throws {
        func file(_ name: String) -> String { directory.file("tls-" + name) }
        func run(_ arguments: [String]) throws {
            let result = try ChatdirProcess.run(arguments, executable: Self.openssl)
            guard result.status == 0 else {
                throw CocoaError(
                    .fileWriteUnknown,
                    userInfo: [
                        NSLocalizedDescriptionKey: "openssl \(arguments.joined(separator: " ")): \(result.stderr)"
                    ])
            }
        }
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        rootCA = file("root.pem")
        otherRootCA = file("other-root.pem")
        try run(
            ["req", "-x509"] + newKey + [
                "-keyout", file("root.key"), "-out", rootCA, "-days", "2", "-subj", "/CN=chatdir test root",
            ])
        try run(
            ["req", "-x509"] + newKey + [
                "-keyout", file("other-root.key"), "-out", otherRootCA, "-days", "2", "-subj", "/CN=another test root",
            ])
        serverKey = file("server.key")
        try run(
            ["req"] + newKey + ["-keyout", serverKey, "-out", file("server.csr"), "-subj", "/CN=chatdir test server"])
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\n".utf8).write(to: URL(fileURLWithPath: file("local.ext")))
        try Data("subjectAltName=DNS:elsewhere.example\n".utf8).write(to: URL(fileURLWithPath: file("elsewhere.ext")))
        func sign(_ out: String, by ca: String, days: String, extensions: String, serial: String) throws {
            try run([
                "x509", "-req", "-in", file("server.csr"), "-CA", file(ca + ".pem"), "-CAkey", file(ca + ".key"),
                "-set_serial", serial,
                "-days", days, "-extfile", file(extensions), "-out", out,
            ])
        }
        server = file("server.pem")
        wrongHost = file("wrong-host.pem")
        expired = file("expired.pem")
        otherCA = file("other-ca.pem")
        try sign(server, by: "root", days: "2", extensions: "local.ext", serial: "1")
        try sign(wrongHost, by: "root", days: "2", extensions: "elsewhere.ext", serial: "2")
        // -days -1: notAfter a day before notBefore, expired from the start.
        try sign(expired, by: "root", days: "-1", extensions: "local.ext", serial: "3")
        try sign(otherCA, by: "other-root", days: "2", extensions: "local.ext", serial: "4")
    }
}
