/// `GET /_matrix/client/versions`: the specification versions the server speaks.
public struct MatrixVersions: Sendable, Hashable {
    /// `r0.6.1`, `v1.1`, … in the server's order.
    public var versions: [String]
    /// `unstable_features`, each on or off.
    public var unstableFeatures: [String: Bool]

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        versions = try field.required("versions").array(max: MatrixLimits.listEntries) {
            item throws(MatrixDecodingError) in try item.typeName()
        }
        var features: [String: Bool] = [:]
        if let unstable = try field.optional("unstable_features") {
            for (name, flag) in try unstable.members(max: MatrixLimits.listEntries) { features[name] = try flag.bool() }
        }
        unstableFeatures = features
    }

    /// Whether the server speaks `version` (`v1.11`, say).
    public func supports(_ version: String) -> Bool { versions.contains(version) }
}

/// `GET /.well-known/matrix/client`: where the homeserver's client API is for a server name.
public struct MatrixWellKnown: Sendable, Hashable {
    /// `m.homeserver.base_url`: an `https://` or `http://` URL.
    public var homeserverBaseURL: String
    /// `m.identity_server.base_url`, when given.
    public var identityServerBaseURL: String?

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        homeserverBaseURL = try field.required("m.homeserver") { field throws(MatrixDecodingError) in
            try field.required("base_url", Self.baseURL)
        }
        identityServerBaseURL = try field.optional("m.identity_server") { field throws(MatrixDecodingError) in
            try field.required("base_url", Self.baseURL)
        }
    }

    private static func baseURL(_ field: MatrixField) throws(MatrixDecodingError) -> String {
        let text = try field.string(maxBytes: 2048)
        guard text.hasPrefix("https://") || text.hasPrefix("http://"),
            text.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else { throw field.refuse("not an http(s) URL: \(MatrixText.quoted(text))") }
        return text
    }
}
