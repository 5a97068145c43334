import ChatDomain

/// `chatdir.json`: which format the store is in, whose it is, and where it syncs.
public struct Manifest: Hashable, Sendable {
    public var format: Int
    /// Messages per segment file; fixed when the store is created.
    public var segmentSize: Int
    public var userID: UserID
    /// The server to sync with, if any, parsed (``ServerAddress``): the manifest holds only URLs
    /// that `chatdir sync` reads the same way. Never a token: secrets are not written into the store.
    public var server: ServerAddress?

    public static let maxSegmentSize = 100_000

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
        let user = reader.userID("userId")
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
        reader.rejectUnknownKeys(["format", "segmentSize", "server", "userId"])
        guard reader.problems.isEmpty, let size, let user else { throw .damaged(reader.problems[0]) }
        return Manifest(userID: user, server: server, segmentSize: size)
    }
}
