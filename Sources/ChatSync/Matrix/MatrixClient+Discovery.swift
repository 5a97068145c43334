import ChatDomain
import ChatMatrix

extension MatrixClient {
    /// Where `user`'s homeserver is, found as the client-server specification's "Server
    /// discovery" says: `GET /.well-known/matrix/client` at the user ID's server name (its port
    /// kept), whose `m.homeserver.base_url` is the homeserver once it answers
    /// `/_matrix/client/versions`; a 404 there means the server name itself is the homeserver.
    ///
    /// A base URL that is not `http(s)://host[:port]`, or that does not answer `/versions`, is a
    /// ``SyncError/contract(_:)`` naming it: the server name points at no usable homeserver.
    /// Failures that may pass (``SyncError/isTemporary``) stay what they are. `scheme` is how
    /// the server name is reached: https, except in tests on loopback.
    public static func discover(
        _ user: MatrixUserID, scheme: ServerAddress.Scheme = .https, timeout: Duration = .seconds(30),
        caFile: String? = nil
    ) async throws(SyncError) -> ServerAddress {
        try await discover(user, scheme: scheme, timeout: timeout, connector: .network(caFile: caFile))
    }

    static func discover(_ user: MatrixUserID, scheme: ServerAddress.Scheme, timeout: Duration, connector: Connector)
        async throws(SyncError) -> ServerAddress
    {
        let origin: ServerAddress
        do {
            origin = try ServerAddress(scheme.rawValue + "://" + user.serverName)
        } catch {
            throw .contract("the server name of \(user) is not a server address: \(error)")
        }
        let wellKnownURL = origin.description + MatrixEndpoint.wellKnown.path
        let wellKnown: MatrixWellKnown
        do {
            wellKnown = try await MatrixClient(server: origin, accessToken: nil, timeout: timeout, connector: connector)
                .wellKnown()
        } catch .rejected(404, _) {
            return origin
        } catch {
            if error.isTemporary { throw error }
            throw .contract("\(wellKnownURL): \(Self.withoutEndpoint(error))")
        }
        let base: ServerAddress
        do {
            base = try ServerAddress(wellKnown.homeserverBaseURL)
        } catch {
            throw .contract("\(wellKnownURL): m.homeserver.base_url is not usable: \(error)")
        }
        do {
            _ = try await MatrixClient(server: base, accessToken: nil, timeout: timeout, connector: connector)
                .versions()
        } catch {
            if error.isTemporary { throw error }
            throw .contract(
                "\(wellKnownURL) names \(base) as the homeserver, which does not answer "
                    + "\(MatrixEndpoint.versions.path): \(Self.withoutEndpoint(error))")
        }
        return base
    }

    /// The failure's words, for a message that names the URL itself.
    private static func withoutEndpoint(_ error: SyncError) -> String {
        switch error {
        case .rejected(let status, let message): "\(status) \(message)"
        case .contract(let reason): reason
        default: error.description
        }
    }
}

extension MatrixClient {
    /// ``discover(_:scheme:timeout:caFile:)`` for a store's user ID, which must be a Matrix one
    /// (a name is a ``SyncError/contract(_:)``: there is nothing to discover).
    public static func discover(userID: UserID, caFile: String? = nil) async throws(SyncError) -> ServerAddress {
        let user: MatrixUserID
        do { user = try MatrixUserID(userID.rawValue) } catch { throw .contract("\(error)") }
        return try await discover(user, caFile: caFile)
    }
}
