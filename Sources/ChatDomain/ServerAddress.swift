/// Where a server is: `http://host[:port]` or `https://host[:port]`, a base URL without path,
/// user or query.
///
/// Parsed once, where a URL comes in (`chatdir init --server`, `chatdir sync --server`, the
/// manifest's `server`), so every command agrees on what a server URL is. An `https` address is
/// spoken to over TLS, the live socket as wss (ChatSync's `Connector.network`).
public struct ServerAddress: Sendable, Hashable, CustomStringConvertible {
    /// How the server is reached: the URL's scheme.
    public enum Scheme: String, Sendable, Hashable {
        case http
        case https

        /// The port a URL without one means: 80 for http, 443 for https.
        public var defaultPort: UInt16 {
            switch self {
            case .http: 80
            case .https: 443
            }
        }
    }

    public var scheme: Scheme
    public var host: String
    public var port: UInt16

    /// Parses `http://host[:port][/]` or `https://host[:port][/]` (`[::1]:8080` for IPv6); the
    /// error quotes the text and says what is wrong with it.
    public init(_ text: String) throws(ServerAddress.Invalid) {
        guard let scheme = [Scheme.http, .https].first(where: { text.hasPrefix($0.rawValue + "://") }) else {
            throw .notAServerURL(text)
        }
        var rest = Substring(text.dropFirst(scheme.rawValue.count + 3))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@"), !rest.contains("?"), !rest.contains("#") else {
            throw Invalid(text, "give only \(scheme.rawValue)://host:port, without a path, user or query")
        }
        var hostPart = rest
        var port = scheme.defaultPort
        if rest.hasPrefix("[") { // [::1]:8080
            guard let close = rest.firstIndex(of: "]") else { throw Invalid(text, "unclosed '['") }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = UInt16(after.dropFirst()), value > 0 else { throw Invalid(text, "bad port") }
                port = value
            } else if !after.isEmpty {
                throw Invalid(text, "unexpected text after the host")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            hostPart = rest[..<colon]
            guard let value = UInt16(rest[rest.index(after: colon)...]), value > 0 else {
                throw Invalid(text, "the port must be a number from 1 to 65535")
            }
            port = value
        }
        guard !hostPart.isEmpty else { throw Invalid(text, "no host") }
        self.scheme = scheme
        host = String(hostPart)
        self.port = port
    }

    /// Why a text is not a server address.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }

        public init(message: String) {
            self.message = message
        }

        /// `"<text>": <problem>`, the text cut at 200 characters.
        init(_ text: String, _ problem: String) {
            message = quotedURL(text) + ": " + problem
        }

        static func notAServerURL(_ text: String) -> Invalid {
            Invalid(message: quotedURL(text) + " is not a server URL; expected http://host:port or https://host:port")
        }
    }

    public init(host: String, port: UInt16, scheme: Scheme = .http) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// The `Host` header value: the port only when it is not the scheme's default.
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == scheme.defaultPort ? name : "\(name):\(port)"
    }

    /// The canonical URL (`http://127.0.0.1:8080`): what the manifest stores.
    public var description: String { scheme.rawValue + "://" + hostHeader }
}

private func quotedURL(_ text: String) -> String {
    "\"" + String(text.prefix(200)) + "\""
}
