import ChatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A program running on a pseudo-terminal of its own (openpty(3), 120 columns by 40 rows), as
/// if in a terminal window: a thread reads the master side as the program writes, timestamps
/// each read with the monotonic clock and cuts the output into ``ScreenFrame``s, which the
/// measuring thread waits for with ``waitForFrame(after:within:_:accept:)``.
final class PseudoTerminal: @unchecked Sendable {
    let name: String
    let child: Child
    private let master: Int32
    private let children: Children
    /// Frames seen so far: the newest few, the count, and whether the output ended.
    private let seen = Lock<Seen>(Seen())
    /// Signalled by the reader after each frame and at the end of the output.
    private let arrived: WakePipe
    /// Signalled by ``close()`` to stop the reader.
    private let stopReading: WakePipe
    private let reader = DedicatedThread()

    private struct Seen {
        var recent: [ScreenFrame] = []
        var count = 0
        var ended: String?
        /// The last bytes read, whole frames or not: what a program that died wrote last.
        var tail: [UInt8] = []
    }

    static let rows: UInt16 = 40
    static let columns: UInt16 = 120

    /// Starts `arguments` on a new pseudo-terminal with TERM=xterm-256color and `environment`;
    /// `cursorEnds`: its frames end by showing the cursor (`chatdir chat`), not at `ESC[J`.
    init(_ name: String, _ arguments: [String], environment: [String: String], cursorEnds: Bool, children: Children)
        throws(LatencyFailure)
    {
        self.name = name
        self.children = children
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: Self.rows, ws_col: Self.columns, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else {
            throw LatencyFailure("openpty for \(name): \(String(cString: strerror(errno)))")
        }
        // Neither end may leak into the other children; the child opens the slave by name.
        _ = fcntl(master, F_SETFD, FD_CLOEXEC)
        _ = fcntl(slave, F_SETFD, FD_CLOEXEC)
        guard let slaveName = ttyname(slave).map({ String(cString: $0) }) else {
            Glibc.close(master)
            Glibc.close(slave)
            throw LatencyFailure("ttyname of \(name)'s pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        var environment = environment
        environment["TERM"] = "xterm-256color"
        do {
            arrived = try WakePipe()
            stopReading = try WakePipe()
            child = try children.spawn(name, arguments, environment: environment, output: .terminal(slaveName))
        } catch let error as LatencyFailure {
            Glibc.close(master)
            Glibc.close(slave)
            throw error
        } catch {
            Glibc.close(master)
            Glibc.close(slave)
            throw LatencyFailure("\(name): \(error)")
        }
        // posix_spawn returns once the child has exec'd (it holds the slave by then): with our
        // copy closed, the child's exit ends the master's input (EIO) instead of leaving it open.
        Glibc.close(slave)
        self.master = master
        children.describeOutput(of: child.pid) { [seen] in
            Self.printable(seen.withLock { $0.tail })
        }
        do {
            try reader.start { [self] in readLoop(cursorEnds: cursorEnds) }
        } catch {
            children.stop(child)
            Glibc.close(master)
            throw LatencyFailure("no thread to read \(name)'s terminal: \(error)")
        }
    }

    private func readLoop(cursorEnds: Bool) {
        var splitter = FrameSplitter(cursorEnds: cursorEnds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        var ending = "its terminal closed (the program ended)"
        while true {
            guard let ready = try? Poll.wait([master, stopReading.readEnd], timeoutMilliseconds: -1) else {
                ending = "poll on its terminal failed"
                break
            }
            if ready[1].readyToRead { return }
            guard ready[0].readyToRead else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
            let now = Clock.monotonicNanoseconds()
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { break } // EIO: every slave descriptor is closed
            let frames = splitter.feed(buffer[0..<count])
            seen.withLock { seen in
                seen.tail += buffer[max(0, count - 2048)..<count]
                if seen.tail.count > 4096 { seen.tail.removeFirst(seen.tail.count - 2048) }
            }
            guard !frames.isEmpty else { continue }
            seen.withLock { seen in
                for frame in frames {
                    seen.count += 1
                    seen.recent.append(
                        ScreenFrame(number: seen.count, at: now, lines: frame.lines, cursor: frame.cursor))
                }
                if seen.recent.count > 256 { seen.recent.removeFirst(seen.recent.count - 128) }
            }
            arrived.signal()
        }
        seen.withLock { $0.ended = ending }
        arrived.signal()
    }

    /// How many frames the program has drawn so far: pass it to ``waitForFrame(after:within:_:accept:)``
    /// to wait only for frames drawn after this moment.
    var frameCount: Int { seen.withLock { $0.count } }

    /// The newest frame, if any.
    var lastFrame: ScreenFrame? { seen.withLock { $0.recent.last } }

    /// Writes `bytes` to the program's terminal, as typing does; returns the monotonic time
    /// just before the write(2).
    @discardableResult
    func type(_ bytes: [UInt8]) throws(LatencyFailure) -> UInt64 {
        let start = Clock.monotonicNanoseconds()
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                throw LatencyFailure("cannot type into \(name)'s terminal: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
        return start
    }

    func type(_ text: String) throws(LatencyFailure) -> UInt64 {
        try type(Array(text.utf8))
    }

    /// The first frame numbered above `mark` that `accept` takes, waiting up to `seconds`.
    /// Throws, saying `what` was awaited and showing the last frame, at the timeout, when the
    /// program's output ends, or when any child of the run has exited.
    func waitForFrame(after mark: Int, within seconds: Double, _ what: String, accept: (ScreenFrame) -> Bool)
        throws(LatencyFailure) -> ScreenFrame
    {
        guard let frame = try frameIfAny(after: mark, within: seconds, what, accept: accept) else {
            throw LatencyFailure(
                "\(name): no frame showed \(what) within \(Figure.format(seconds, decimals: 1)) s" + lastScreen)
        }
        return frame
    }

    /// ``waitForFrame(after:within:_:accept:)``, but nil at the timeout (a sample lost, not a failure).
    func frameIfAny(after mark: Int, within seconds: Double, _ what: String, accept: (ScreenFrame) -> Bool)
        throws(LatencyFailure) -> ScreenFrame?
    {
        let deadline = Clock.monotonicNanoseconds() + UInt64(seconds * 1e9)
        var checked = mark
        while true {
            arrived.drain()
            let (fresh, ended) = seen.withLock { seen in
                (seen.recent.filter { $0.number > checked }, seen.ended)
            }
            if let found = fresh.first(where: accept) { return found }
            checked = fresh.last?.number ?? checked
            try children.check(while: "waiting for \(what)")
            if let ended { throw LatencyFailure("\(name): \(ended) while waiting for \(what)" + lastScreen) }
            let now = Clock.monotonicNanoseconds()
            guard now < deadline else { return nil }
            _ = try? Poll.wait([arrived.readEnd], timeoutMilliseconds: Int(min(100, (deadline - now) / 1_000_000 + 1)))
        }
    }

    /// Raw terminal output as lines a person can read: escape sequences shown as `⎋`.
    static func printable(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self).replacingEscapes()
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(15).map { "  | " + $0 }.joined(
            separator: "\n")
    }

    private var lastScreen: String {
        guard let frame = lastFrame else { return "; it drew no frame at all" }
        return "; its last frame:\n" + frame.text
    }

    /// Stops the program (SIGTERM, SIGKILL after 5 s) and the reader, and closes the master.
    func close() {
        children.stop(child)
        stopReading.signal()
        reader.join()
        Glibc.close(master)
    }
}

extension String {
    /// ESC as `⎋` and `\r` dropped, so raw terminal output prints harmlessly.
    fileprivate func replacingEscapes() -> String {
        String(
            String.UnicodeScalarView(
                unicodeScalars.compactMap { scalar in
                    scalar == "\u{1B}" ? "⎋" : scalar == "\r" ? nil : scalar
                }))
    }
}
