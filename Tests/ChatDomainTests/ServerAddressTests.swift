import ChatDomain
import ChatTestSupport
import Testing

@Suite(.ownThreads) struct ServerAddressTests {
    @Test(
        "server URLs parse into scheme, host and port, and print in their canonical form",
        arguments: [
            ("http://127.0.0.1:8080", ServerAddress.Scheme.http, "127.0.0.1", UInt16(8080), "http://127.0.0.1:8080"),
            ("http://127.0.0.1:8080/", .http, "127.0.0.1", 8080, "http://127.0.0.1:8080"),
            ("http://chat.example", .http, "chat.example", 80, "http://chat.example"),
            ("http://chat.example:80", .http, "chat.example", 80, "http://chat.example"),
            ("https://chat.example", .https, "chat.example", 443, "https://chat.example"),
            ("https://chat.example:8443/", .https, "chat.example", 8443, "https://chat.example:8443"),
            ("https://chat.example:80", .https, "chat.example", 80, "https://chat.example:80"),
            ("http://[::1]:8080", .http, "::1", 8080, "http://[::1]:8080"),
            ("https://[::1]", .https, "::1", 443, "https://[::1]"),
        ])
    func valid(_ text: String, scheme: ServerAddress.Scheme, host: String, port: UInt16, canonical: String) throws {
        let address = try ServerAddress(text)
        #expect(address.scheme == scheme)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.description == canonical)
        #expect(try ServerAddress(canonical) == address)
    }

    @Test(
        "text that is not a server URL is refused with the text quoted and what is wrong",
        arguments: [
            ("ftp://x", "\"ftp://x\" is not a server URL; expected http://host:port or https://host:port"),
            (
                "wss://chat.example",
                "\"wss://chat.example\" is not a server URL; expected http://host:port or https://host:port"
            ),
            (
                "127.0.0.1:8080",
                "\"127.0.0.1:8080\" is not a server URL; expected http://host:port or https://host:port"
            ),
            ("http://h/api", "\"http://h/api\": give only http://host:port, without a path, user or query"),
            ("https://u:p@h", "\"https://u:p@h\": give only https://host:port, without a path, user or query"),
            ("http://h?x=1", "\"http://h?x=1\": give only http://host:port, without a path, user or query"),
            ("http://", "\"http://\": give only http://host:port, without a path, user or query"),
            ("http://h:0", "\"http://h:0\": the port must be a number from 1 to 65535"),
            ("https://h:65536", "\"https://h:65536\": the port must be a number from 1 to 65535"),
            ("http://:8080", "\"http://:8080\": no host"),
            ("http://[::1", "\"http://[::1\": unclosed '['"),
            ("http://[::1]x", "\"http://[::1]x\": unexpected text after the host"),
        ])
    func invalid(_ text: String, message: String) {
        #expect(throws: ServerAddress.Invalid.self) { try ServerAddress(text) }
        do {
            _ = try ServerAddress(text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("the Host header names the port only when it is not the scheme's default")
    func hostHeader() {
        #expect(ServerAddress(host: "h", port: 80).hostHeader == "h")
        #expect(ServerAddress(host: "h", port: 443).hostHeader == "h:443")
        #expect(ServerAddress(host: "h", port: 443, scheme: .https).hostHeader == "h")
        #expect(ServerAddress(host: "::1", port: 8080).hostHeader == "[::1]:8080")
    }
}
