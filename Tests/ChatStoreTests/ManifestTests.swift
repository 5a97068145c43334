import ChatDomain
import ChatTestSupport
import Testing

@testable import ChatStore

/// `chatdir.json`'s server is a ``ServerAddress``: parsed when the manifest is read, written in
/// its canonical form, so an http store's manifest keeps its bytes.
@Suite(.ownThreads) struct ManifestTests {
    @Test(
        "an http or https server round-trips through the manifest byte for byte",
        arguments: [
            "http://127.0.0.1:8080", "https://chat.example", "https://chat.example:8443", "http://[::1]:8080",
        ])
    func roundTrip(_ url: String) throws {
        let bytes = Array(
            "{\n\"format\":1,\n\"segmentSize\":10,\n\"server\":\"\(url)\",\n\"userId\":\"alice\"\n}\n".utf8)
        let manifest = try Manifest.decode(bytes, path: "chatdir.json")
        #expect(manifest.server == (try ServerAddress(url)))
        #expect(manifest.encode() == bytes)
    }

    @Test("a server URL sync could not use makes the manifest damaged, naming the key and the way out")
    func badServer() {
        let bytes = Array(
            "{\n\"format\":1,\n\"segmentSize\":10,\n\"server\":\"http://h/api\",\n\"userId\":\"alice\"\n}\n".utf8)
        do {
            _ = try Manifest.decode(bytes, path: "chatdir.json")
            Issue.record("decoded a manifest whose server has a path")
        } catch {
            #expect(
                error.description.contains(
                    "\"server\": \"http://h/api\": give only http://host:port, without a path, user or query; write a URL like http://127.0.0.1:8080, or remove the line and pass --server to sync"
                ), "\(error)")
            #expect(error.exitCode == 65)
        }
    }

    @Test("a manifest without a server has none")
    func noServer() throws {
        let manifest = Manifest(userID: alice)
        #expect(try Manifest.decode(manifest.encode(), path: "chatdir.json").server == nil)
    }
}
