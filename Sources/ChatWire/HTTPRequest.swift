/// An HTTP/1.x request: what the server's parser produces and what the client serializes.
public struct HTTPRequest: Sendable, Hashable {
    /// The method as sent, case-sensitive: `GET`, `POST`.
    public var method: String
    public var target: HTTPRequestTarget
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(
        method: String,
        target: HTTPRequestTarget,
        version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = [:],
        body: [UInt8] = []
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// Whether the connection stays open after the response (RFC 9112 §9.3): HTTP/1.1 unless
    /// `Connection` lists `close`; HTTP/1.0 only if it lists `keep-alive`.
    public var keepAlive: Bool {
        if headers.containsToken("close", for: "Connection") { return false }
        return version == .http1_0 ? headers.containsToken("keep-alive", for: "Connection") : true
    }

    /// The request as bytes: request line, headers in order, then the body.
    ///
    /// A `Content-Length` matching the body is written in place of any the headers carry
    /// whenever the body is not empty; a bodiless request is written without one.
    /// - Throws: ``HTTPHeaderError`` when a header name or value, the method or the target
    ///   holds CR, LF or NUL: written as is, it would inject headers of its own.
    public func serialized() throws(HTTPHeaderError) -> [UInt8] {
        var headers = headers
        if !body.isEmpty {
            headers.remove(name: "Content-Length")
            headers.add(name: "Content-Length", value: String(body.count))
        }
        return try HTTPHead.serialize(startLine: "\(method) \(target) \(version)", headers: headers) + body
    }
}
