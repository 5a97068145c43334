/// Where the server is: `http://host:port` (a base URL without path, user or query).
///
/// The client speaks plain HTTP/1.1 to the reference server on this machine or a trusted
/// network; `https` is refused with a clear error rather than sent in clear text.
public struct ServerAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    /// Parses `http://host[:port][/]`; the error says what is wrong with the text.
    public init(_ text: String) throws(ServerAddress.Invalid) {
        guard text.hasPrefix("http://") else {
            if text.hasPrefix("https://") {
                throw Invalid(message: "\(quotedURL(text)): https is not supported by this client; use http:// to the reference server")
            }
            throw Invalid(message: "\(quotedURL(text)) is not a server URL; expected http://host:port")
        }
        var rest = Substring(text.dropFirst("http://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@"), !rest.contains("?"), !rest.contains("#") else {
            throw Invalid(message: "\(quotedURL(text)): give only http://host:port, without a path, user or query")
        }
        var hostPart = rest
        var port: UInt16 = 80
        if rest.hasPrefix("[") {  // [::1]:8080
            guard let close = rest.firstIndex(of: "]") else { throw Invalid(message: "\(quotedURL(text)): unclosed '['") }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = UInt16(after.dropFirst()), value > 0 else { throw Invalid(message: "\(quotedURL(text)): bad port") }
                port = value
            } else if !after.isEmpty {
                throw Invalid(message: "\(quotedURL(text)): unexpected text after the host")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            hostPart = rest[..<colon]
            guard let value = UInt16(rest[rest.index(after: colon)...]), value > 0 else {
                throw Invalid(message: "\(quotedURL(text)): the port must be a number from 1 to 65535")
            }
            port = value
        }
        guard !hostPart.isEmpty else { throw Invalid(message: "\(quotedURL(text)): no host") }
        host = String(hostPart)
        self.port = port
    }

    /// Why a text is not a server address.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// The `Host` header value.
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }

    public var description: String { "http://" + hostHeader }
}

private func quotedURL(_ text: String) -> String {
    "\"" + String(text.prefix(200)) + "\""
}
