import ChatDomain
import ChatStore
import ChatSystem
import Foundation

/// Server POSTs/s (`--only server`): 8 keep-alive clients, each on a thread of its own, POST to
/// one conversation for `seconds` after half a second of warm-up; a POST counts once its 201
/// (sent only when the message is durable) is read.
enum PostLoad {
    struct Figures {
        var postsPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
    }

    static func measure(_ fixture: ServerFixture, seconds: Int) throws -> Figures {
        let counts = Lock([Int](repeating: 0, count: 8))
        let latencies = Lock([Double]())
        let failures = Lock([String]())
        let warmUpEnds = Stats.now() + 500_000_000
        let ends = warmUpEnds + UInt64(seconds) * 1_000_000_000
        let group = DispatchGroup()
        let port = fixture.server.port
        for worker in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let client = try KeepAliveClient(port: port, token: "p\(worker)-token")
                    var local: [Double] = []
                    while true {
                        let start = Stats.now()
                        if start >= ends { break }
                        let status = try client.post(conversation: ServerFixture.id("posts"), text: "load \(worker)")
                            .status
                        guard status == 201 else { throw Subprocess.Failure(description: "POST answered \(status)") }
                        if start >= warmUpEnds { local.append(Double(Stats.now() - start) / 1e6) }
                    }
                    counts.withLock { $0[worker] = local.count }
                    latencies.withLock { $0 += local }
                } catch {
                    failures.withLock { $0.append("client \(worker): \(error)") }
                }
            }
        }
        group.wait()
        if let failure = failures.withLock({ $0.first }) { throw Subprocess.Failure(description: failure) }
        let total = counts.withLock { $0.reduce(0, +) }
        let percentiles = Stats.p50p99(latencies.withLock { $0 })
        return Figures(
            postsPerSecond: Double(total) / Double(seconds), p50Milliseconds: percentiles.p50,
            p99Milliseconds: percentiles.p99)
    }
}
