import ChatDomain

/// `chatdir.json`: which format the store is in, whose it is, and where it syncs.
public struct Manifest: Hashable, Sendable {
    public var format: Int
    /// Messages per segment file; fixed when the store is created.
    public var segmentSize: Int
    /// A name in a wire v1 store, a Matrix user ID in a Matrix one (``storeProtocol``).
    public var userID: UserID
    /// The server to sync with, if any, parsed (``ServerAddress``): the manifest holds only URLs
    /// that `chatdir sync` reads the same way. Never a token: secrets are not written into the store.
    public var server: ServerAddress?

    public static let maxSegmentSize = 100_000

    /// The protocol the store syncs over: the one its user's ID belongs to, so a manifest can
    /// never pair a Matrix store with a name or wire v1 with a Matrix user ID.
    public var storeProtocol: StoreProtocol { StoreProtocol(of: userID) }

    public init(userID: UserID, server: ServerAddress? = nil, segmentSize: Int = StoreLayout.defaultSegmentSize) {
        self.format = StoreLayout.formatVersion
        self.segmentSize = segmentSize
        self.userID = userID
        self.server = server
    }

    /// One key per line, sorted.
    public func encode() -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{\n")
        writer.key("format")
        writer.write(format)
        if let value = storeProtocol.manifestValue {
            writer.raw(",\n")
            writer.key("protocol")
            writer.write(value)
        }
        writer.raw(",\n")
        writer.key("segmentSize")
        writer.write(segmentSize)
        if let server {
            writer.raw(",\n")
            writer.key("server")
            writer.write(server.description)
        }
        writer.raw(",\n")
        writer.key("userId")
        writer.write(userID.rawValue)
        writer.raw("\n}\n")
        return writer.bytes
    }

    /// Reads a manifest. An unknown `format` is refused before anything else is looked at.
    public static func decode(_ bytes: [UInt8], path: String) throws(StoreError) -> Manifest {
        var problems: [StoreProblem] = []
        guard let value = parseWholeFile(bytes, path: path, problems: &problems),
            var reader = RecordReader(value, what: "a manifest", path: path, line: nil, problems: &problems)
        else {
            throw .damaged(problems[0])
        }
        if let format = value["format"], format != .integer(StoreLayout.formatVersion) {
            let found: String = if case .integer(let number) = format { String(number) } else { format.typeDescription }
            throw .unsupportedFormat(path: path, found: found)
        }
        _ = reader.integer("format", atLeast: 1)
        let size = reader.integer("segmentSize", atLeast: 1)
        if let size, size > maxSegmentSize {
            reader.problem("\"segmentSize\" must be at most \(maxSegmentSize), found \(size)")
        }
        var storeProtocol = StoreProtocol.wire
        if let text = reader.string("protocol", required: false) {
            if text == StoreProtocol.matrix.manifestValue {
                storeProtocol = .matrix
            } else {
                reader.problem(
                    "\"protocol\": unknown protocol \(quoted(text)); chatdir knows \"matrix\", and a wire v1 store has no \"protocol\" line"
                )
            }
        }
        var user = reader.userID("userId")
        if let found = user, let problem = storeProtocol.userIDProblem(found) {
            reader.problem("\"userId\": \(problem); a store's protocol is fixed when it is made, so create a new one")
            user = nil
        }
        var server: ServerAddress?
        if let text = reader.string("server", required: false) {
            do throws(ServerAddress.Invalid) {
                server = try ServerAddress(text)
            } catch {
                reader.problem(
                    "\"server\": \(error); write a URL like http://127.0.0.1:8080, or remove the line and pass --server to sync"
                )
            }
        }
        reader.rejectUnknownKeys(["format", "protocol", "segmentSize", "server", "userId"])
        guard reader.problems.isEmpty, let size, let user else { throw .damaged(reader.problems[0]) }
        return Manifest(userID: user, server: server, segmentSize: size)
    }
}
