import ChatDomain
import ChatMatrix
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// The account side of ``MatrixClient`` against a real Synapse: a session ends (`/logout`), a
/// short-lived token is renewed (`/refresh`), and a user ID leads to its homeserver (server
/// discovery through a real `/.well-known/matrix/client`).
@Suite(.ownThreads, .enabled(if: Synapse.isInstalled, Comment(rawValue: Synapse.notInstalled)))
struct MatrixAccountSynapseTests {
    static func anonymous(_ synapse: Synapse) -> MatrixClient {
        MatrixClient(
            server: ServerAddress(host: "127.0.0.1", port: UInt16(synapse.port)), accessToken: nil,
            timeout: .seconds(60))
    }

    /// Whether `attempt` fails as unauthorized, and if so with which words.
    static func refusal(_ attempt: () async throws(SyncError) -> Void) async -> String? {
        do {
            try await attempt()
            return nil
        } catch {
            if case .unauthorized(let words) = error { return words }
            return nil
        }
    }

    @Test("after logout the token is refused as unauthorized; another device's token still works")
    func logout() async throws {
        let synapse = try Synapse.start()
        let alice = try synapse.register("alice")
        let anonymous = Self.anonymous(synapse)
        let login = try await anonymous.login(user: alice.localpart, password: alice.password, deviceID: "CHATDIR1")
        let client = anonymous.authenticated(login.accessToken)
        #expect(try await client.whoami().deviceID == "CHATDIR1")

        try await client.logout()
        let words = await Self.refusal { () throws(SyncError) in _ = try await client.whoami() }
        #expect(words?.hasPrefix("401 M_UNKNOWN_TOKEN") == true, "\(words ?? "not refused")")
        let other = anonymous.authenticated(alice.accessToken)
        #expect(try await other.whoami().deviceID == alice.deviceID)
    }

    /// A replaced access token is not refused at once: Synapse (1.163.2, SQLite) still takes it
    /// until it expires, even after the refresh after (`expiry` shows it refused then). What a
    /// client relies on is that the newest token works and a spent refresh token does not.
    @Test("a login with refresh tokens refreshes: the new token works, a spent refresh token is refused")
    func refresh() async throws {
        let synapse = try Synapse.start()
        let alice = try synapse.register("alice")
        let anonymous = Self.anonymous(synapse)
        let login = try await anonymous.login(
            user: alice.localpart, password: alice.password, deviceID: "CHATDIR1", refreshToken: true)
        let firstRefresh = try #require(login.refreshToken)
        #expect(login.expiresInMilliseconds.map { (1...300_000).contains($0) } == true)
        let first = anonymous.authenticated(login.accessToken)
        #expect(try await first.whoami().deviceID == "CHATDIR1")

        let second = try await anonymous.refresh(firstRefresh)
        let secondRefresh = try #require(second.refreshToken)
        #expect(second.accessToken != login.accessToken && secondRefresh != firstRefresh)
        #expect(second.expiresInMilliseconds != nil)
        let whoami = try await anonymous.authenticated(second.accessToken).whoami()
        #expect(whoami.deviceID == "CHATDIR1" && whoami.userID == login.userID)

        let third = try await anonymous.refresh(secondRefresh)
        #expect(try await anonymous.authenticated(third.accessToken).whoami().deviceID == "CHATDIR1")
        let spent = await #expect(throws: SyncError.self) { _ = try await anonymous.refresh(firstRefresh) }
        #expect(spent?.isTemporary == false, "\(spent.map(String.init(describing:)) ?? "")")
    }

    @Test("an expired token is refused as a soft logout, and refreshing recovers")
    func expiry() async throws {
        let synapse = try Synapse.start(configuration: ["refreshable_access_token_lifetime: 2s"])
        let alice = try synapse.register("alice")
        let anonymous = Self.anonymous(synapse)
        let login = try await anonymous.login(
            user: alice.localpart, password: alice.password, deviceID: "CHATDIR1", refreshToken: true)
        #expect(login.expiresInMilliseconds.map { (1...2000).contains($0) } == true)
        let expiring = anonymous.authenticated(login.accessToken)

        var words: String?
        try await waitUntil("the access token expires") {
            words = await Self.refusal { () throws(SyncError) in _ = try await expiring.whoami() }
            return words != nil
        }
        #expect(
            words?.hasPrefix("401 M_UNKNOWN_TOKEN") == true && words?.contains("soft logout") == true, "\(words ?? "")")

        let renewed = try await anonymous.refresh(try #require(login.refreshToken))
        #expect(try await anonymous.authenticated(renewed.accessToken).whoami().deviceID == "CHATDIR1")
        #expect(await Self.refusal { () throws(SyncError) in _ = try await expiring.whoami() } != nil)
    }

    // MARK: - Server discovery

    /// The server name's web server (``StaticWebSite``), with or without a
    /// `/.well-known/matrix/client`.
    final class WebServer {
        let site: StaticWebSite
        var port: Int { site.port }

        init() throws { site = try StaticWebSite() }

        /// Serves `json` as `/.well-known/matrix/client`, or nothing there (a 404) when nil.
        func wellKnown(_ json: String?) throws { try site.serve(".well-known/matrix/client", json) }

        /// A user whose server name is this web server, port and all.
        var user: MatrixUserID { get throws { try MatrixUserID("@alice:127.0.0.1:\(port)") } }
    }

    @Test("a user ID's well-known names the homeserver it is then logged in to")
    func discovery() async throws {
        let synapse = try Synapse.start()
        let alice = try synapse.register("alice")
        let web = try WebServer()
        try web.wellKnown(#"{"m.homeserver":{"base_url":"\#(synapse.url)/"}}"#)

        let found = try await MatrixClient.discover(try web.user, scheme: .http)
        #expect(found == ServerAddress(host: "127.0.0.1", port: UInt16(synapse.port)))
        let login = try await MatrixClient(server: found, accessToken: nil)
            .login(user: alice.localpart, password: alice.password, deviceID: "CHATDIR1")
        #expect(login.userID.rawValue == alice.userID)
    }

    @Test("without a well-known (404) the server name itself, port kept, is the homeserver")
    func discoveryWithoutWellKnown() async throws {
        let web = try WebServer()
        try web.wellKnown(nil)
        let found = try await MatrixClient.discover(try web.user, scheme: .http)
        #expect(found == ServerAddress(host: "127.0.0.1", port: UInt16(web.port)))
    }

    @Test("a base URL that is not http(s), or does not answer /versions, is refused naming it")
    func discoveryRefusesBadBaseURL() async throws {
        let web = try WebServer()
        let wellKnownURL = "http://127.0.0.1:\(web.port)/.well-known/matrix/client"
        let user = try web.user

        try web.wellKnown(#"{"m.homeserver":{"base_url":"ftp://matrix.example.org"}}"#)
        let ftp = await Self.contractFailure { () throws(SyncError) in
            _ = try await MatrixClient.discover(user, scheme: .http)
        }
        #expect(ftp.contains(wellKnownURL) && ftp.contains("ftp://matrix.example.org"), "\(ftp)")

        // The web server is no homeserver: its /_matrix/client/versions is a 404.
        try web.wellKnown(#"{"m.homeserver":{"base_url":"http://127.0.0.1:\#(web.port)"}}"#)
        let notMatrix = await Self.contractFailure { () throws(SyncError) in
            _ = try await MatrixClient.discover(user, scheme: .http)
        }
        #expect(
            notMatrix.contains("http://127.0.0.1:\(web.port) as the homeserver")
                && notMatrix.contains("/_matrix/client/versions") && notMatrix.contains("404"), "\(notMatrix)")
    }

    /// The words of the ``SyncError/contract(_:)`` `attempt` fails with, or what happened instead.
    static func contractFailure(_ attempt: () async throws(SyncError) -> Void) async -> String {
        do {
            try await attempt()
            return "no failure"
        } catch {
            if case .contract(let words) = error { return words }
            return "not a contract failure: \(error)"
        }
    }
}
