import ChatProtocol

extension SyncError {
    /// The sync's reading of a ``WireDecoder`` refusal: an answer that breaks the contract is a
    /// contract violation (nothing from it is stored); one whose decoding outlasted the request's
    /// deadline is a slow answer, temporary like any other.
    init(_ error: WireDecodingError) {
        switch error {
        case .contract(let reason): self = .contract(reason)
        case .deadlinePassed: self = .temporary(error.description, retryAfter: nil)
        }
    }

    /// `decode(input)` (a ``WireDecoder`` function), its refusal turned into a ``SyncError``.
    static func decoding<Input, T>(_ decode: (Input) throws(WireDecodingError) -> T, _ input: Input) throws(SyncError)
        -> T
    {
        do { return try decode(input) } catch { throw SyncError(error) }
    }
}

extension APIClient.Answer {
    /// The body read by `decode` (a ``WireDecoder`` function) within the request's deadline.
    func decode<T>(_ decode: ([UInt8], ContinuousClock.Instant?) throws(WireDecodingError) -> T) throws(SyncError) -> T
    {
        do { return try decode(body, deadline) } catch { throw SyncError(error) }
    }

    /// The body read by `decode`, which also takes `argument` (the position kind, say).
    func decode<A, T>(_ decode: ([UInt8], A, ContinuousClock.Instant?) throws(WireDecodingError) -> T, _ argument: A)
        throws(SyncError) -> T
    {
        do { return try decode(body, argument, deadline) } catch { throw SyncError(error) }
    }
}
