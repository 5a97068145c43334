/// An HTTP/1.1 response to serialize: what the server writes back for each request.
public struct HTTPResponse: Sendable, Hashable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The response as bytes: `HTTP/1.1 <code> <reason>`, headers in order, then the body.
    ///
    /// A `Content-Length` matching the body replaces any the headers carry, so the client always
    /// knows where the response ends; 1xx and 204 responses get none, as RFC 9110 §8.6 requires,
    /// and must have an empty body.
    /// - Throws: ``HTTPHeaderError`` when a header name or value or the reason phrase holds CR, LF or NUL.
    public func serialized() throws(HTTPHeaderError) -> [UInt8] {
        var headers = headers
        headers.remove(name: "Content-Length")
        let mayHaveBody = !(100..<200).contains(status.code) && status.code != 204
        if mayHaveBody {
            headers.add(name: "Content-Length", value: String(body.count))
        }
        return try HTTPHead.serialize(startLine: "\(HTTPVersion.http1_1) \(status)", headers: headers)
            + (mayHaveBody ? body : [])
    }
}
