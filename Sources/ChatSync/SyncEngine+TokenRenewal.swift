/// A token that expires: after the server answers 401, the live worker asks its token provider
/// (a token command run again, a token file read again) for a new one and reconnects with it.
extension SyncEngine {
    /// After `refused` was answered 401: true when requests should be tried again with
    /// ``token``, which is then another token. Already renewed since (by the outbox and the live
    /// connection meeting the same 401): true at once. Renewing right now: waits for that one.
    /// Otherwise asks ``tokenProvider``; false, so the caller keeps the 401, when there is no
    /// provider, when it fails (said in `log`, never with the token), when it gives the same
    /// token, or when the last renewal was less than ``Options/tokenRenewalInterval`` ago (the
    /// new token was refused as well: asking again would only loop).
    func renewToken(refused: String, log: @escaping @Sendable (String) -> Void) async -> Bool {
        if refused != token { return true }
        if let renewal = tokenRenewal { return await renewal.value }
        guard let tokenProvider else { return false }
        if let last = tokenRenewedAt, ContinuousClock.now - last < options.tokenRenewalInterval { return false }
        let renewal = Task { await self.fetchToken(tokenProvider, log: log) }
        tokenRenewal = renewal
        let renewed = await renewal.value
        tokenRenewal = nil
        return renewed
    }

    /// One renewal of ``renewToken(refused:log:)``: every later request, and the next live
    /// connection, carries the new token.
    private func fetchToken(_ provider: @Sendable () async throws -> String, log: @Sendable (String) -> Void) async
        -> Bool
    {
        let fresh: String
        do { fresh = try await provider() } catch {
            tokenRenewedAt = .now
            log("the token was refused and a new one could not be had: \(error)")
            return false
        }
        tokenRenewedAt = .now
        guard fresh != token else {
            log("the token was refused and its source gives the same one again")
            return false
        }
        token = fresh
        session = session.renewing(token: fresh)
        log("the token was refused; using the new one from its source")
        return true
    }
}

extension SyncEngine {
    /// ``syncOnce()``, and when the server refused the token (401) and its source gives a new
    /// one (``renewToken(refused:log:)``), one more pass with that token: `chatdir sync` run by
    /// a timer gets past an expired token as the live worker does. What the first pass stored,
    /// sent or saw rejected before the 401 is counted with the second's.
    public func syncOnceRenewingToken(log: @escaping @Sendable (String) -> Void) async -> Report {
        let refused = token
        let first = await syncOnce()
        guard first.unauthorized, await renewToken(refused: refused, log: log) else { return first }
        var second = await syncOnce()
        second.newMessages += first.newMessages
        second.sent += first.sent
        second.failed = first.failed + second.failed
        second.started = first.started + second.started
        return second
    }
}
