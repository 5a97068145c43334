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

/// `"protocol": "matrix"` in `chatdir.json`: written only for a Matrix store, so a wire v1
/// manifest keeps its bytes, and a user ID of the other protocol's kind is damage.
@Suite(.ownThreads) struct ManifestProtocolTests {
    static let matrixUser = try! UserID("@alice:example.org")

    @Test("a wire v1 manifest has no protocol line and reads back as wire v1")
    func wire() throws {
        let manifest = Manifest(userID: alice, server: try ServerAddress("http://127.0.0.1:8080"), segmentSize: 10)
        #expect(
            manifest.encode()
                == Array(
                    "{\n\"format\":1,\n\"segmentSize\":10,\n\"server\":\"http://127.0.0.1:8080\",\n\"userId\":\"alice\"\n}\n"
                        .utf8))
        #expect(try Manifest.decode(manifest.encode(), path: "chatdir.json").storeProtocol == .wire)
    }

    @Test("a Matrix user's manifest says protocol matrix between format and segmentSize, and round-trips")
    func matrix() throws {
        let manifest = Manifest(
            userID: Self.matrixUser, server: try ServerAddress("https://matrix.example.org"), segmentSize: 100)
        let bytes = Array(
            "{\n\"format\":1,\n\"protocol\":\"matrix\",\n\"segmentSize\":100,\n\"server\":\"https://matrix.example.org\",\n\"userId\":\"@alice:example.org\"\n}\n"
                .utf8)
        #expect(manifest.storeProtocol == .matrix)
        #expect(manifest.encode() == bytes)
        let decoded = try Manifest.decode(bytes, path: "chatdir.json")
        #expect(decoded == manifest)
        #expect(decoded.storeProtocol == .matrix)
    }

    @Test(
        "a protocol chatdir does not know, or a user ID of the other protocol's kind, is damage naming the key",
        arguments: [
            (
                "\"protocol\":\"wire\",\n\"segmentSize\":10,\n\"userId\":\"alice\"",
                "chatdir.json: \"protocol\": unknown protocol \"wire\"; chatdir knows \"matrix\", and a wire v1 store has no \"protocol\" line"
            ),
            (
                "\"protocol\":\"Matrix\",\n\"segmentSize\":10,\n\"userId\":\"@alice:example.org\"",
                "chatdir.json: \"protocol\": unknown protocol \"Matrix\""
            ),
            (
                "\"protocol\":1,\n\"segmentSize\":10,\n\"userId\":\"alice\"",
                "chatdir.json: \"protocol\" must be a string, found an integer"
            ),
            (
                "\"protocol\":\"matrix\",\n\"segmentSize\":10,\n\"userId\":\"alice\"",
                "chatdir.json: \"userId\": \"alice\" is not a Matrix user ID (like @alice:example.org), which a Matrix store holds; a store's protocol is fixed when it is made, so create a new one"
            ),
            (
                "\"segmentSize\":10,\n\"userId\":\"@alice:example.org\"",
                "chatdir.json: \"userId\": \"@alice:example.org\" is a Matrix user ID, but this is a wire v1 store (its chatdir.json has no \"protocol\": \"matrix\"), whose user IDs are names like alice"
            ),
        ])
    func refused(lines: String, message: String) {
        let bytes = Array("{\n\"format\":1,\n\(lines)\n}\n".utf8)
        do {
            let manifest = try Manifest.decode(bytes, path: "chatdir.json")
            Issue.record("read \(manifest)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error)")
            #expect(error.exitCode == 65)
        }
    }
}
