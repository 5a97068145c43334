import ChatDomain
import ChatTestSupport
import Foundation
import Testing

/// `chatdir sync` over https and `sync --live` over wss, against TLS peers no one
/// here wrote: Python's `ssl` in front of the reference server, and `openssl s_server` for the
/// certificates and handshakes chatdir must refuse. Certificates are made per test by the
/// openssl command line (TestCertificates).
@Suite(.ownThreads, .enabled(if: TestCertificates.available, "needs the openssl command line (CI installs it)"))
struct TLSEndToEndTests {
    /// How many times `text` appears in the server's data files.
    func serverCopies(of text: String, _ server: TestServer) throws -> Int {
        try snapshotFiles(server.directory.file("server")).values.reduce(0) { count, data in
            count + String(decoding: data, as: UTF8.self).components(separatedBy: text).count - 1
        }
    }

    @Test(
        "offline send, then sync over https with --ca-file: the server holds the message once; a second pass sends nothing",
        .enabled(if: TLSPeer.pythonAvailable, "needs python3 (CI has it)"))
    func offlineSendThenHTTPS() throws {
        let directory = try TemporaryDirectory()
        let certificates = try TestCertificates(in: directory)
        let server = try TestServer(sampleData: true)
        let proxy = try TLSPeer.pythonTLSProxy(
            certificate: certificates.server, key: certificates.serverKey, backendPort: server.server.port,
            in: directory)
        let store = directory.file("alice")
        let url = "https://127.0.0.1:\(proxy.port)"
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", url, store]).status == 0)
        let first = try ChatdirProcess.run(
            ["sync", "--store", store, "--ca-file", certificates.rootCA], environment: ["CHATDIR_TOKEN": "alice-token"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "synced 2 conversations, 7 new messages, 0 sent\n", "\(first.stdout)")
        #expect(try ChatdirProcess.run(["send", "--store", store, "dinner", "sent over tls"]).status == 0)

        let second = try ChatdirProcess.run(
            ["sync", "--store", store, "--ca-file", certificates.rootCA], environment: ["CHATDIR_TOKEN": "alice-token"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == "synced 2 conversations, 0 new messages, 1 sent\n", "\(second.stdout)")
        #expect(try serverCopies(of: "sent over tls", server) == 1)

        let third = try ChatdirProcess.run(
            ["sync", "--store", store],
            environment: ["CHATDIR_TOKEN": "alice-token", "CHATDIR_CA_FILE": certificates.rootCA])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout == "synced 2 conversations, 0 new messages, 0 sent\n", "\(third.stdout)")
        #expect(try serverCopies(of: "sent over tls", server) == 1)
        let view = try ChatdirProcess.run(["view", "--store", store, "dinner"])
        #expect(view.lines.last?.hasSuffix("alice  sent over tls  ✓ sent") == true, "\(view.stdout)")

        let history = try ChatdirProcess.run(
            ["history", "--store", store, "dinner", "--ca-file", certificates.rootCA],
            environment: ["CHATDIR_TOKEN": "alice-token"])
        #expect(history.status == 0, "\(history.stderr)")
    }

    @Test(
        "sync --live over wss: a message bob sends reaches alice's store through the live socket",
        .enabled(if: TLSPeer.pythonAvailable, "needs python3 (CI has it)"))
    func liveOverWSS() throws {
        let directory = try TemporaryDirectory()
        let certificates = try TestCertificates(in: directory)
        let server = try TestServer(sampleData: true)
        let proxy = try TLSPeer.pythonTLSProxy(
            certificate: certificates.server, key: certificates.serverKey, backendPort: server.server.port,
            in: directory)
        let alice = directory.file("alice")
        let bob = directory.file("bob")
        #expect(
            try ChatdirProcess.run(["init", "--user", "alice", "--server", "https://localhost:\(proxy.port)", alice])
                .status == 0)
        #expect(try ChatdirProcess.run(["init", "--user", "bob", "--server", server.url, bob]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)

        let worker = try RunningChatdir(
            ["sync", "--live", "--store", alice],
            environment: ["CHATDIR_TOKEN": "alice-token", "CHATDIR_CA_FILE": certificates.rootCA])
        defer { _ = worker.interrupt() }
        let aliceID = try UserID("alice")
        #expect(
            waitUntil { server.server.liveSocketCount(for: aliceID) == 1 }, "alice's live socket through the TLS proxy")
        #expect(try ChatdirProcess.run(["send", "--store", bob, "alice-bob", "live over wss"]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        #expect(
            waitUntil {
                (try? ChatdirProcess.run(["view", "--store", alice, "alice-bob"]).stdout.contains("live over wss"))
                    == true
            })
    }

    /// A server chatdir must refuse, and the words it must say.
    enum Refusal: String, CaseIterable, Sendable {
        case unknownAuthority, otherAuthority, wrongHost, expired, tls10Only, plainHTTP

        var expected: String {
            switch self {
            case .unknownAuthority, .otherAuthority: "certificate for 127.0.0.1 is signed by an unknown authority (CN="
            case .wrongHost:
                "is not for 127.0.0.1 (CN=chatdir test server); connect by a name or address the certificate lists"
            case .expired: "certificate for 127.0.0.1 expired on "
            case .tls10Only: "failed: the server offers no TLS 1.2 or newer, which chatdir requires"
            case .plainHTTP: "failed: the server did not answer in TLS (a plain http:// server?)"
            }
        }
    }

    @Test(
        "an untrusted, wrong-host or expired certificate, a TLS 1.0 server, a plain HTTP server behind https://: exit 77, its own words, nothing written",
        arguments: Refusal.allCases)
    func refused(_ refusal: Refusal) throws {
        let directory = try TemporaryDirectory()
        let certificates = try TestCertificates(in: directory)
        var plain: TestServer?
        var peer: TLSPeer?
        let port: Int
        switch refusal {
        case .plainHTTP:
            plain = try TestServer(sampleData: true)
            port = plain?.server.port ?? 0
        default:
            let certificate =
                switch refusal {
                case .otherAuthority: certificates.otherCA
                case .wrongHost: certificates.wrongHost
                case .expired: certificates.expired
                default: certificates.server
                }
            let extra = refusal == .tls10Only ? ["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"] : []
            peer = try TLSPeer.openSSLServer(certificate: certificate, key: certificates.serverKey, extra: extra)
            port = peer?.port ?? 0
        }
        let store = directory.file("alice")
        #expect(
            try ChatdirProcess.run(["init", "--user", "alice", "--server", "https://127.0.0.1:\(port)", store]).status
                == 0)
        // The store lock (`.lock`) is taken before connecting; nothing else may appear or change.
        let before = try snapshotFiles(store).filter { $0.key != ".lock" && $0.key != ".sync-status" }
        let serverBefore = try plain.map { try snapshotFiles($0.directory.file("server")) }
        // Every case but the unknown authority trusts the test root: the refusal is for another reason.
        let trust = refusal == .unknownAuthority ? [] : ["--ca-file", certificates.rootCA]
        let synced = try ChatdirProcess.run(
            ["sync", "--store", store] + trust, environment: ["CHATDIR_TOKEN": "alice-token"])
        #expect(synced.status == 77, "\(synced.stderr)")
        #expect(synced.stderr.contains(refusal.expected), "\(synced.stderr)")
        // Nothing was synced, and stdout does not say "synced 0 conversations".
        #expect(synced.stdout == "not synced\n", "\(synced.stdout)")
        if refusal == .unknownAuthority || refusal == .otherAuthority {
            #expect(synced.stderr.contains("; pass --ca-file with that authority's certificate"), "\(synced.stderr)")
        }
        #expect(!synced.stderr.contains("alice-token"))
        #expect(try snapshotFiles(store).filter { $0.key != ".lock" && $0.key != ".sync-status" } == before)
        if let plain { #expect(try snapshotFiles(plain.directory.file("server")) == serverBefore) }
        _ = peer
    }

    @Test("a --ca-file that does not exist: exit 66 before connecting")
    func missingCAFile() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("alice")
        #expect(
            try ChatdirProcess.run(["init", "--user", "alice", "--server", "https://127.0.0.1:9", store]).status == 0)
        let synced = try ChatdirProcess.run(
            ["sync", "--store", store, "--ca-file", directory.file("nowhere.pem")],
            environment: ["CHATDIR_TOKEN": "alice-token"])
        #expect(synced.status == 66, "\(synced.stderr)")
        #expect(
            synced.stderr.contains("nowhere.pem: no such CA file; pass --ca-file with the PEM certificate"),
            "\(synced.stderr)")
    }
}

/// The live worker against a server whose certificate it refuses: it says why and waits long
/// between attempts instead of reconnecting in a tight loop.
@Suite(.ownThreads, .enabled(if: TestCertificates.available, "needs the openssl command line (CI installs it)"))
struct TLSLiveRefusalEndToEndTests {
    @Test("sync --live against an unknown authority: the reason on stderr, then a wait of a minute, not a tight loop")
    func liveBacksOff() throws {
        let directory = try TemporaryDirectory()
        let certificates = try TestCertificates(in: directory)
        let peer = try TLSPeer.openSSLServer(certificate: certificates.server, key: certificates.serverKey)
        let store = directory.file("alice")
        #expect(
            try ChatdirProcess.run(["init", "--user", "alice", "--server", "https://127.0.0.1:\(peer.port)", store])
                .status == 0)
        let (worker, errors) = try ChatdirProcess.startLiveWorker(store: store)
        var lines: [String] = []
        var pending = Data()
        let handle = errors.fileHandleForReading
        // The first attempt and its wait: two lines.
        while lines.count < 2 {
            let data = handle.availableData
            if data.isEmpty { break }
            pending.append(data)
            while let newline = pending.firstIndex(of: 0x0A) {
                lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
        kill(worker.processIdentifier, SIGKILL)
        worker.waitUntilExit()
        #expect(
            lines.first?.contains(
                "certificate for 127.0.0.1 is signed by an unknown authority (CN=chatdir test root); pass --ca-file")
                == true, "\(lines)")
        #expect(lines.dropFirst().first.map { $0.contains("chatdir sync: reconnecting in 6") } == true, "\(lines)")
        _ = peer
    }
}
