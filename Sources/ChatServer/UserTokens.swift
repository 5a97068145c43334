import ChatDomain
import ChatStore
import ChatSystem

/// Which user a bearer token stands for: the server's only notion of sign-in.
///
/// Read from the users file (`users.json` in the data directory unless `--users` names another):
/// a JSON array with one object per line, `token` and `userId`, both required.
///
/// ```
/// [
/// {"token":"alice-token","userId":"alice"},
/// {"token":"bob-token","userId":"bob"}
/// ]
/// ```
///
/// A user may have several tokens (one per device); a token belongs to one user. Tokens are
/// compared exactly; they never appear in a conversation file or a log line.
public struct UserTokens: Sendable, Hashable {
    private var users: [String: UserID]

    public init(_ users: [String: UserID]) {
        self.users = users
    }

    /// The user `token` stands for, or nil for an unknown token.
    public func user(forToken token: String) -> UserID? {
        users[token]
    }

    /// Every user that has a token, sorted.
    public var userIDs: [UserID] { Set(users.values).sorted() }

    /// The canonical bytes of a users file: one object per line, sorted by token.
    public func encode() -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("[\n")
        for (index, token) in users.keys.sorted().enumerated() {
            if index > 0 { writer.raw(",\n") }
            writer.raw("{")
            writer.key("token")
            writer.write(token)
            writer.raw(",")
            writer.key("userId")
            writer.write(users[token]?.rawValue ?? "")
            writer.raw("}")
        }
        writer.raw(users.isEmpty ? "]\n" : "\n]\n")
        return writer.bytes
    }

    /// Reads a users file. `path` is used in errors.
    /// - Throws: ``ServerError/badUsersFile(path:reason:)`` naming the entry that is wrong.
    public static func decode(_ bytes: [UInt8], path: String) throws(ServerError) -> UserTokens {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw .badUsersFile(path: path, reason: "not valid JSON: \(error)")
        }
        guard case .array(let entries) = value else {
            throw .badUsersFile(
                path: path,
                reason: "expected a JSON array of {\"token\": …, \"userId\": …} objects, found \(value.typeDescription)"
            )
        }
        var users: [String: UserID] = [:]
        for (index, entry) in entries.enumerated() {
            let label = "entry \(index + 1)"
            guard case .object(let members) = entry else {
                throw .badUsersFile(
                    path: path,
                    reason: "\(label) is \(entry.typeDescription), expected an object with \"token\" and \"userId\"")
            }
            for member in members where member.key != "token" && member.key != "userId" {
                throw .badUsersFile(
                    path: path, reason: "\(label) has unknown field \(quoted(member.key)); allowed: token, userId")
            }
            guard case .string(let token)? = entry["token"], !token.isEmpty,
                token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else {
                throw .badUsersFile(
                    path: path,
                    reason:
                        "\(label) needs \"token\": a non-empty string of visible ASCII characters (it is sent in an HTTP header)"
                )
            }
            guard case .string(let name)? = entry["userId"] else {
                throw .badUsersFile(path: path, reason: "\(label) needs \"userId\", a string")
            }
            let user: UserID
            do { user = try UserID.name(name) } catch { throw .badUsersFile(path: path, reason: "\(label): \(error)") }
            guard users[token] == nil else {
                throw .badUsersFile(
                    path: path,
                    reason:
                        "\(label) repeats a token already given to \(users[token]?.rawValue ?? ""); give each token to one user"
                )
            }
            users[token] = user
        }
        return UserTokens(users)
    }

    /// Bytes of randomness in a token made by ``fresh(for:)``: 256 bits, written as 64 hex digits.
    public static let freshTokenBytes = 32

    /// One new token for each of `users`, from the system's cryptographically secure random
    /// source (`getrandom(2)` through `SystemRandomNumberGenerator`), as lowercase hex: visible
    /// ASCII, so it goes into an HTTP header and a shell variable as it is.
    public static func fresh(for users: [UserID]) -> UserTokens {
        var tokens: [String: UserID] = [:]
        for user in users {
            var token = ""
            for _ in 0..<(freshTokenBytes / 8) {
                let word = UInt64.random(in: .min ... .max)
                let digits = String(word, radix: 16)
                token += String(repeating: "0", count: 16 - digits.count) + digits
            }
            tokens[token] = user
        }
        return UserTokens(tokens)
    }

    /// Every token with its user, sorted by user (then token): what `serve --init` prints.
    public var tokensByUser: [(user: UserID, token: String)] {
        users.map { (user: $0.value, token: $0.key) }.sorted {
            ($0.user.rawValue, $0.token) < ($1.user.rawValue, $1.token)
        }
    }

    /// Reads the users file at `path`.
    public static func load(from path: String) throws(ServerError) -> UserTokens {
        let bytes: [UInt8]
        do { bytes = try Sys.readFile(path) } catch {
            if error.isNotFound {
                throw .badUsersFile(
                    path: path,
                    reason:
                        "it does not exist; make a data directory with `chatdir serve --init DIR --user NAME…`, or name another users file with --users FILE"
                )
            }
            throw .badUsersFile(path: path, reason: error.description)
        }
        return try decode(bytes, path: path)
    }
}
