import ChatDomain
import ChatMatrix
import ChatStore
import ChatSync
import ChatSystem
import Synchronization

/// A saved Matrix login's renewal, for a homeserver that hands out refresh tokens (`chatdir
/// login` keeps one beside the token): after a 401, the token file again when another process
/// of the store renewed it meanwhile, else `POST /refresh` with the saved refresh token and both
/// new tokens saved. One process at a time (``SavedLogin/renewalLock``): a refresh token is
/// good once, and two processes spending it would leave one of them logged out.
final class MatrixTokenRefresher: Sendable {
    private let saved: SavedLogin
    private let client: MatrixClient
    private let environment: Environment
    /// The token this process uses now: one on file that differs is another process's renewal.
    private let current: Mutex<String>
    /// The longest wait for another process's renewal: one refresh request, retried, takes far
    /// less; a process stopped (SIGSTOP, a debugger) while it holds the lock is not waited for.
    private let lockWait: Duration

    /// Nil unless `source` is the saved login's token file and a refresh token is saved.
    init?(
        store: Store, source: TokenSource, token: String, server: ServerAddress, caFile: String?,
        environment: Environment, lockWait: Duration = .seconds(60)
    ) {
        guard store.manifest.storeProtocol == .matrix, case .file(let path) = source,
            let saved = try? SavedLogin(store: store, environment: environment), SavedLogin.same(path, saved.tokenFile),
            Sys.kind(of: saved.refreshFile) != nil
        else { return nil }
        self.saved = saved
        client = MatrixClient(server: server, accessToken: nil, caFile: caFile)
        self.environment = environment
        current = Mutex(token)
        self.lockWait = lockWait
    }

    /// A new access token, or a ``CommandFailure`` saying why there is none.
    func renew() async throws -> String {
        let lock = try openLock()
        // Another process renewing holds it for one request: waited for without a blocked thread.
        let giveUp = ContinuousClock.now + lockWait
        while true {
            do throws(SystemError) {
                try lock.lockExclusive(path: saved.renewalLock)
                break
            } catch {
                guard error.isWouldBlock else {
                    throw CommandFailure(message: "cannot renew the token: \(error)", exitCode: 74)
                }
            }
            guard ContinuousClock.now < giveUp else {
                throw CommandFailure(
                    message:
                        "cannot renew the token: another process has held \(saved.renewalLock) for \(lockWait) (see `fuser \(saved.renewalLock)`); try again when it is done",
                    exitCode: 75)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        defer { lock.unlock() }
        if let onFile = try saved.savedToken(environment), onFile != current.withLock({ $0 }) {
            current.withLock { $0 = onFile }
            return onFile
        }
        guard let refreshToken = try saved.savedRefreshToken(environment) else {
            throw CommandFailure(
                message: "the token expired and no refresh token is saved in \(saved.refreshFile): run `chatdir login`",
                exitCode: 77)
        }
        let answer: MatrixRefresh
        do throws(SyncError) { answer = try await client.refresh(refreshToken) } catch {
            if case .unauthorized = error {
                throw CommandFailure(
                    message: "the homeserver refused the saved refresh token (\(error)): run `chatdir login`",
                    exitCode: 77)
            }
            throw error
        }
        // The homeserver forgot the old refresh token as it answered: the new one is saved first.
        if let next = answer.refreshToken { try saved.saveRefreshToken(next) }
        try saved.saveToken(answer.accessToken)
        current.withLock { $0 = answer.accessToken }
        return answer.accessToken
    }

    private func openLock() throws -> FileDescriptor {
        do throws(SystemError) { return try FileDescriptor.openLockFile(saved.renewalLock) } catch {
            throw CommandFailure(message: "cannot renew the token: \(error)", exitCode: 74)
        }
    }
}
