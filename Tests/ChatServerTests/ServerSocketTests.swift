import ChatSystem
import ChatTestSupport
import Testing

@testable import ChatServer

/// The listening socket as a user of `chatdir serve` meets it: the words when its port is taken,
/// and the port free again the moment a server stops.
@Suite(.ownThreads) struct ServerSocketTests {
    private func configuration(port: Int) throws -> (TemporaryDirectory, ServerConfiguration) {
        let directory = try TemporaryDirectory()
        try TestData.create(at: directory.path)
        return (directory, ServerConfiguration(dataDirectory: directory.path, port: port))
    }

    @Test("a port another server listens on: the error names the address and the way out, exit 69")
    func portInUse() throws {
        let first = try TestServer()
        let (directory, configuration) = try configuration(port: first.port)
        defer { _ = directory }
        do {
            _ = try ChatServer(configuration: configuration)
            Issue.record("a second server bound port \(first.port)")
        } catch {
            #expect(error.isAddressInUse)
            #expect(
                error.description
                    == "bind 127.0.0.1:\(first.port): Address already in use; another process listens on that port: pick another with --port, or --port 0 for any free one"
            )
            #expect(error.exitCode == 69)
        }
    }

    @Test("stop frees the port at once, whether the server ran or was never started")
    func stopFreesThePort() throws {
        for started in [true, false] {
            // In a parallel run another test's socket may take the freed port in the moment
            // before it is bound again (seen once after an 18 s stall of the machine): that is
            // not this server's doing, so try with fresh ports. A port that stop did not free
            // fails every attempt.
            var bound = false
            var lastError: (any Error)?
            for _ in 0..<5 where !bound {
                let (directory, configuration) = try configuration(port: 0)
                defer { _ = directory }
                let server = try ChatServer(configuration: configuration)
                if started { try server.start() }
                server.stop()
                // Held on purpose while binding again: the port must not wait for the object to go.
                do {
                    let again = try ChatServer(
                        configuration: ServerConfiguration(dataDirectory: directory.path, port: server.port))
                    again.stop()
                    bound = true
                } catch {
                    lastError = error
                }
                withExtendedLifetime(server) {}
            }
            #expect(bound, "started: \(started): \(String(describing: lastError))")
        }
    }
}
