import ChatTestSupport
import Foundation
import Glibc

/// A TLS server no one here wrote, as a child process on a port from the kernel: `openssl
/// s_server`, or Python's `ssl` terminating TLS in front of a plain server. Stopped when released.
final class TLSPeer: @unchecked Sendable {
    let process = TestProcess()
    /// The port it listens on, from its first line that names one.
    let port: Int

    /// Whether `python3` is on PATH (the proxy needs only its standard library).
    static let pythonAvailable: Bool =
        (try? ChatdirProcess.run(
            ["python3", "-c", "import ssl, asyncio"], executable: URL(fileURLWithPath: "/usr/bin/env")))?.status == 0

    /// `openssl s_server -www` with `certificate` (extra arguments such as `-tls1` appended).
    static func openSSLServer(certificate: String, key: String, extra: [String] = []) throws -> TLSPeer {
        try TLSPeer(
            TestCertificates.openssl,
            ["s_server", "-accept", "127.0.0.1:0", "-cert", certificate, "-key", key, "-www"] + extra,
            port: { line in line.hasPrefix("ACCEPT ") ? line.split(separator: ":").last.flatMap { Int($0) } : nil })
    }

    /// Python's `ssl` (asyncio) with `certificate`, relaying every connection to the plain
    /// server on `backendPort`: HTTPS and WSS by an independent TLS stack.
    static func pythonTLSProxy(certificate: String, key: String, backendPort: Int, in directory: TemporaryDirectory)
        throws -> TLSPeer
    {
        let script = directory.file("tls_proxy.py")
        try Data(proxyScript.utf8).write(to: URL(fileURLWithPath: script))
        return try TLSPeer(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-u", script, certificate, key, String(backendPort)],
            port: { Int($0) })
    }

    private init(_ executable: URL, _ arguments: [String], port parse: @escaping @Sendable (String) -> Int?) throws {
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = Pipe()
        try process.run()
        // Read lines on a thread of their own until one names the port (30 s at most).
        let found = PortBox()
        readLines(
            of: output.fileHandleForReading,
            { line in
                if let port = parse(line.trimmingCharacters(in: .whitespaces)) { found.set(port) }
            }, ended: { found.set(nil) })
        guard let port = found.wait(seconds: 30) else {
            Self.kill(process)
            throw CocoaError(
                .fileReadUnknown,
                userInfo: [
                    NSLocalizedDescriptionKey: "\(executable.path) \(arguments.joined(separator: " ")) named no port"
                ])
        }
        self.port = port
    }

    deinit { Self.kill(process) }

    /// SIGKILL, not SIGTERM: a child started from a thread with SIGTERM blocked (the CLI's
    /// signal handling, in-process) inherits the mask and would never see a SIGTERM.
    private static func kill(_ process: TestProcess) {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private final class PortBox: @unchecked Sendable {
        private let condition = NSCondition()
        private var done = false
        private var port: Int?
        func set(_ value: Int?) {
            condition.lock()
            if !done { (port, done) = (value, true) }
            condition.broadcast()
            condition.unlock()
        }
        func wait(seconds: Double) -> Int? {
            let deadline = Date().addingTimeInterval(seconds)
            condition.lock()
            defer { condition.unlock() }
            while !done, condition.wait(until: deadline) {}
            return port
        }
    }

    private static let proxyScript = """
        import asyncio, ssl, sys

        certificate, key, backend = sys.argv[1], sys.argv[2], int(sys.argv[3])

        async def relay(reader, writer):
            try:
                while True:
                    data = await reader.read(65536)
                    if not data:
                        break
                    writer.write(data)
                    await writer.drain()
            except Exception:
                pass
            finally:
                try:
                    writer.close()
                except Exception:
                    pass

        async def handle(client_reader, client_writer):
            try:
                backend_reader, backend_writer = await asyncio.open_connection("127.0.0.1", backend)
            except Exception:
                client_writer.close()
                return
            await asyncio.gather(relay(client_reader, backend_writer), relay(backend_reader, client_writer))

        async def main():
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(certificate, key)
            server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
            print(server.sockets[0].getsockname()[1], flush=True)
            async with server:
                await server.serve_forever()

        asyncio.run(main())
        """
}
