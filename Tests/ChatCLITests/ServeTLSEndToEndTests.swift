import ChatDomain
import ChatServer
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

/// `chatdir serve --tls-cert FILE --tls-key FILE`: HTTPS and WSS on one port, checked
/// with clients no one here wrote (curl, Python `websockets`) and with chatdir's own sync.
@Suite(.ownThreads, .enabled(if: TestCertificates.available, "needs the openssl command line (CI installs it)"))
struct ServeTLSEndToEndTests {
    /// A ``TestServer`` on SampleData over TLS, with the test root's server certificate for
    /// 127.0.0.1 and localhost.
    final class TLSServer {
        private let host: TestServer
        /// Where the certificates are; the server's own directory is ``directory``.
        private let certificateDirectory: TemporaryDirectory
        let certificates: TestCertificates
        var directory: TemporaryDirectory { host.directory }
        var server: ChatServer { host.server }
        /// `https://127.0.0.1:PORT`.
        var url: String { server.url }

        init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
            certificateDirectory = try TemporaryDirectory()
            let certificates = try TestCertificates(in: certificateDirectory)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: certificates.serverKey)
            self.certificates = certificates
            host = try TestServer(sampleData: true) { configuration in
                configuration.tlsCertificateFile = certificates.server
                configuration.tlsKeyFile = certificates.serverKey
                configure(&configuration)
            }
        }
    }

    static var curlAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") }
    /// Python 3 with the `websockets` package (CI installs it with pip).
    static let pythonWebSockets: URL? = {
        for path in ["/usr/bin/env"] {
            let probe = try? ChatdirProcess.run(
                ["python3", "-c", "import websockets"], executable: URL(fileURLWithPath: path))
            if probe?.status == 0 { return URL(fileURLWithPath: path) }
        }
        return nil
    }()

    func curl(_ server: TLSServer, _ path: String) throws -> ChatdirProcess.Result {
        try ChatdirProcess.run(
            [
                "-sS", "--max-time", "20", "--cacert", server.certificates.rootCA, "-H",
                "Authorization: Bearer alice-token", server.url + path,
            ],
            executable: URL(fileURLWithPath: "/usr/bin/curl"))
    }

    @Test("a key file others can read: serve refuses to start, exit 77, and says how to fix it")
    func openKeyRefused() throws {
        let directory = try TemporaryDirectory()
        let certificates = try TestCertificates(in: directory)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: certificates.serverKey)
        let data = try copyStore(packageRoot.appendingPathComponent("SampleData/server"), into: directory, as: "server")
        let served = try ChatdirProcess.run([
            "serve", "--data", data, "--port", "0", "--tls-cert", certificates.server, "--tls-key",
            certificates.serverKey,
        ])
        #expect(served.status == 77, "\(served.stderr)")
        #expect(
            served.stderr.contains(
                "\(certificates.serverKey) can be read by others (mode 644); run `chmod 600 \(certificates.serverKey)` first"
            ), "\(served.stderr)")
        #expect(served.stdout.isEmpty)
    }

    @Test(
        "curl lists the conversations over https, verifying the certificate against the test root",
        .enabled(if: curlAvailable, "needs curl"))
    func curlOverHTTPS() throws {
        let server = try TLSServer()
        #expect(server.url.hasPrefix("https://127.0.0.1:"))
        let answer = try curl(server, "/v1/conversations")
        #expect(answer.status == 0, "\(answer.stderr)")
        #expect(answer.stdout.contains("\"id\":\"alice-bob\""), "\(answer.stdout)")
    }

    @Test(
        "a Python websockets client over wss gets the live event of a message bob sends",
        .enabled(if: pythonWebSockets != nil, "needs python3 with websockets (CI installs it with pip)"))
    func pythonWebSocketsClient() throws {
        let server = try TLSServer()
        let script = server.directory.file("ws_client.py")
        try Data(
            """
            import asyncio, ssl, sys
            from websockets.asyncio.client import connect

            async def main():
                context = ssl.create_default_context(cafile=sys.argv[2])
                async with connect(sys.argv[1] + "/v1/live", ssl=context, additional_headers={"Authorization": "Bearer alice-token"}) as socket:
                    while True:
                        event = await socket.recv()
                        print(event, flush=True)
                        if "hello over wss" in event:
                            return

            # Ends by itself once the message came (a kill could come before its line is printed).
            asyncio.run(asyncio.wait_for(main(), timeout=120))
            """.utf8
        ).write(to: URL(fileURLWithPath: script))
        let client = TestProcess()
        client.executableURL = Self.pythonWebSockets
        client.arguments = [
            "python3", script, server.url.replacingOccurrences(of: "https://", with: "wss://"),
            server.certificates.rootCA,
        ]
        let output = Pipe()
        client.standardOutput = output
        client.standardError = FileHandle.nullDevice
        client.standardInput = FileHandle.nullDevice
        try client.run()
        defer {
            kill(client.processIdentifier, SIGKILL)
            client.waitUntilExit()
        }
        let lines = BackgroundRead(output.fileHandleForReading)
        let alice = try UserID("alice")
        #expect(waitUntil { server.server.liveSocketCount(for: alice) == 1 }, "the Python client's wss socket")

        let bob = server.directory.file("bob")
        let trust = ["CHATDIR_TOKEN": "bob-token", "CHATDIR_CA_FILE": server.certificates.rootCA]
        #expect(try ChatdirProcess.run(["init", "--user", "bob", "--server", server.url, bob]).status == 0)
        #expect(try ChatdirProcess.run(["sync", "--store", bob], environment: trust).status == 0)
        #expect(try ChatdirProcess.run(["send", "--store", bob, "alice-bob", "hello over wss"]).status == 0)
        let sent = try ChatdirProcess.run(["sync", "--store", bob], environment: trust)
        #expect(sent.stdout == "synced 2 conversations, 0 new messages, 1 sent\n", "\(sent.stderr)")
        #expect(String(decoding: lines.wait(), as: UTF8.self).contains("hello over wss"))
    }

    @Test(
        "a client that never sends a ClientHello is closed after the request timeout; others are served meanwhile",
        .enabled(if: curlAvailable, "needs curl"))
    func silentClientClosed() throws {
        let server = try TLSServer { $0.requestTimeoutMilliseconds = 500 }
        let silent = try Socket.connect(host: "127.0.0.1", port: server.server.port)
        let start = Date()
        #expect(try curl(server, "/v1/me").stdout.contains("\"userId\":\"alice\""))
        let ready = try Poll.wait([silent.rawValue], timeoutMilliseconds: 20_000)[0]
        #expect(ready.readyToRead, "closed within 20 s")
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect((try? Socket.receive(silent.rawValue, into: &buffer)) ?? 0 == 0, "closed, not answered")
        #expect(Date().timeIntervalSince(start) >= 0.4, "not before the request timeout")
    }

    @Test("a plain HTTP request to the TLS port gets no HTTP answer, just a close")
    func plainRequestClosed() throws {
        let server = try TLSServer()
        let socket = try Socket.connect(host: "127.0.0.1", port: server.server.port)
        try Socket.sendAll(
            socket.rawValue,
            Array("GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice-token\r\n\r\n".utf8))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while try Poll.wait([socket.rawValue], timeoutMilliseconds: 20_000)[0].readyToRead {
            let count = (try? Socket.receive(socket.rawValue, into: &buffer)) ?? 0
            if count == 0 { break }
            received += buffer[0..<count]
        }
        #expect(!String(decoding: received, as: UTF8.self).contains("HTTP/1.1"), "\(received)")
        #expect(!String(decoding: received, as: UTF8.self).contains("alice"))
    }

    @Test("sync --live over wss against serve --tls-cert: bob's message reaches alice's store")
    func liveSyncOverWSS() throws {
        let server = try TLSServer()
        let alice = server.directory.file("alice")
        let bob = server.directory.file("bob")
        let ca = server.certificates.rootCA
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", server.url, alice]).status == 0)
        #expect(try ChatdirProcess.run(["init", "--user", "bob", "--server", server.url, bob]).status == 0)
        #expect(
            try ChatdirProcess.run(
                ["sync", "--store", bob, "--ca-file", ca], environment: ["CHATDIR_TOKEN": "bob-token"]
            ).status == 0)
        let worker = try RunningChatdir(
            ["sync", "--live", "--store", alice, "--ca-file", ca], environment: ["CHATDIR_TOKEN": "alice-token"])
        defer { _ = worker.interrupt() }
        let aliceID = try UserID("alice")
        #expect(waitUntil { server.server.liveSocketCount(for: aliceID) == 1 })
        #expect(try ChatdirProcess.run(["send", "--store", bob, "alice-bob", "live from bob"]).status == 0)
        #expect(
            try ChatdirProcess.run(
                ["sync", "--store", bob, "--ca-file", ca], environment: ["CHATDIR_TOKEN": "bob-token"]
            ).status == 0)
        #expect(
            waitUntil {
                (try? ChatdirProcess.run(["view", "--store", alice, "alice-bob"]).stdout.contains("live from bob"))
                    == true
            })
    }

    @Test("over https with dropped replies and 503s, repeated passes deliver every message once")
    func faultsOverHTTPS() throws {
        let server = try TLSServer {
            $0.faults = (try? Faults(parsing: "drop-reply=0.4,error5xx=0.3,seed=11")) ?? .none
        }
        let alice = server.directory.file("alice")
        let trust = ["CHATDIR_TOKEN": "alice-token", "CHATDIR_CA_FILE": server.certificates.rootCA]
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", server.url, alice]).status == 0)
        var passes = 0
        while try ChatdirProcess.run(["sync", "--store", alice], environment: trust).status != 0, passes < 20 {
            passes += 1
        }
        let texts = (1...5).map { "through the faults \($0)" }
        for text in texts { #expect(try ChatdirProcess.run(["send", "--store", alice, "dinner", text]).status == 0) }
        var last = try ChatdirProcess.run(["sync", "--store", alice], environment: trust)
        passes = 0
        while last.status != 0 || last.stdout.contains("still pending"), passes < 30 {
            #expect(last.status == 75 || last.status == 0, "\(last.stderr)")
            last = try ChatdirProcess.run(["sync", "--store", alice], environment: trust)
            passes += 1
        }
        #expect(last.status == 0, "\(last.stderr)")
        let files = try snapshotFiles(server.directory.file("server")).values.map {
            String(decoding: $0, as: UTF8.self)
        }.joined()
        for text in texts { #expect(files.components(separatedBy: text).count - 1 == 1, "\(text) once on the server") }
    }

    @Test(
        "sync --live over wss with the server closing every live socket: the worker reconnects and still gets bob's message"
    )
    func liveReconnectsOverWSS() throws {
        let server = try TLSServer { $0.faults = (try? Faults(parsing: "live-close=400ms")) ?? .none }
        let alice = server.directory.file("alice")
        let bob = server.directory.file("bob")
        let ca = server.certificates.rootCA
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", server.url, alice]).status == 0)
        #expect(try ChatdirProcess.run(["init", "--user", "bob", "--server", server.url, bob]).status == 0)
        #expect(
            try ChatdirProcess.run(
                ["sync", "--store", bob, "--ca-file", ca], environment: ["CHATDIR_TOKEN": "bob-token"]
            ).status == 0)
        let errors = Pipe()
        let worker = try ChatdirProcess.start(
            ["sync", "--live", "--store", alice, "--ca-file", ca], environment: ["CHATDIR_TOKEN": "alice-token"],
            standardInput: nil, standardError: errors)
        let log = Lock<String>("")
        let handle = errors.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                log.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
        func connections() -> Int {
            log.withLock { $0.components(separatedBy: "connected to https://127.0.0.1:").count - 1 }
        }
        defer {
            kill(worker.processIdentifier, SIGKILL)
            worker.waitUntilExit()
        }
        // Caught up once, then a socket the fault closed.
        #expect(
            waitUntil {
                FileManager.default.fileExists(
                    atPath: alice + "/conversations/alice-bob/messages/0000000001-0000000100.json")
            })
        #expect(try ChatdirProcess.run(["send", "--store", bob, "alice-bob", "after the drops"]).status == 0)
        #expect(
            try ChatdirProcess.run(
                ["sync", "--store", bob, "--ca-file", ca], environment: ["CHATDIR_TOKEN": "bob-token"]
            ).status == 0)
        #expect(
            waitUntil {
                (try? ChatdirProcess.run(["view", "--store", alice, "alice-bob"]).stdout.contains("after the drops"))
                    == true
            })
        // The fault closes every live socket after 400 ms: the worker connects again over wss.
        #expect(waitUntil { connections() >= 2 }, "\(log.withLock { $0 })")
    }
}
