/// The answer to `POST /login`: the new access token and who it is for.
public struct MatrixLogin: Sendable, Hashable {
    public var accessToken: String
    /// The device the token belongs to: the one asked for, or one the server made up.
    public var deviceID: String
    public var userID: MatrixUserID
    /// Present when the login asked for `refresh_token: true` and the server issues them.
    public var refreshToken: String?
    /// How long the access token lasts, in milliseconds (absent: until logged out).
    public var expiresInMilliseconds: Int?

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        accessToken = try field.required("access_token").token()
        deviceID = try field.required("device_id", MatrixLogin.deviceID)
        userID = try field.required("user_id").userID()
        refreshToken = try field.optional("refresh_token")?.token()
        expiresInMilliseconds = try field.optional("expires_in_ms")?.integer(in: 1...MatrixLimits.maxInteger)
    }

    /// A device ID: printable ASCII without spaces (it goes into paths and the txnId scope).
    static func deviceID(_ field: MatrixField) throws(MatrixDecodingError) -> String {
        let text = try field.string(maxBytes: MatrixLimits.identifierBytes)
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw field.refuse("not a device ID (\(MatrixText.quoted(text)))")
        }
        return text
    }
}

/// The answer to `POST /refresh`: a new access token, and the refresh token to use next time
/// (the one sent is spent once the new access token has been used).
public struct MatrixRefresh: Sendable, Hashable {
    public var accessToken: String
    /// Absent when the server keeps the old refresh token valid.
    public var refreshToken: String?
    /// How long the new access token lasts, in milliseconds (absent: until logged out).
    public var expiresInMilliseconds: Int?

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        accessToken = try field.required("access_token").token()
        refreshToken = try field.optional("refresh_token")?.token()
        expiresInMilliseconds = try field.optional("expires_in_ms")?.integer(in: 1...MatrixLimits.maxInteger)
    }
}

/// The answer to `GET /account/whoami`: whose token this is.
public struct MatrixWhoami: Sendable, Hashable {
    public var userID: MatrixUserID
    /// Absent for tokens not tied to a device (application services).
    public var deviceID: String?
    public var isGuest: Bool

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        userID = try field.required("user_id").userID()
        deviceID = try field.optional("device_id", MatrixLogin.deviceID)
        isGuest = try field.optional("is_guest")?.bool() ?? false
    }
}
