import ChatTestSupport
import Foundation
import Testing

/// `chatdir init --server` and `chatdir sync` read a server URL with the same parser, so a store
/// `init` made never holds a URL `sync` calls malformed. An https server is reached over TLS
/// (TLSEndToEndTests): here, only that `init` stores it as given.
@Suite(.ownThreads) struct ServerAddressEndToEndTests {
    @Test("init stores an https server in the manifest as given")
    func httpsStored() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("alice")
        let url = "https://127.0.0.1:8443"
        let created = try ChatdirProcess.run(["init", "--user", "alice", "--server", url, store])
        #expect(created.status == 0, "\(created.stderr)")
        let manifest = try String(contentsOfFile: store + "/chatdir.json", encoding: .utf8)
        #expect(manifest.contains("\"server\":\"\(url)\""), "\(manifest)")
    }

    // That init and sync refuse the same URLs with the same words is in-process rows of ArgumentsTests.

    @Test("init --server http://127.0.0.1:8080 writes the manifest SampleData's store has, byte for byte")
    func httpManifestBytes() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("alice")
        #expect(
            try ChatdirProcess.run([
                "init", "--user", "alice", "--server", "http://127.0.0.1:8080", "--segment-size", "10", store,
            ]).status == 0)
        let written = try Data(contentsOf: URL(fileURLWithPath: store + "/chatdir.json"))
        let sample = try Data(contentsOf: packageRoot.appendingPathComponent("SampleData/alice/chatdir.json"))
        #expect(written == sample, "\(String(decoding: written, as: UTF8.self))")
    }
}
