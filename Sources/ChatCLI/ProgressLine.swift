import ChatSync
import ChatSystem

/// A one-line progress display on stderr for long work (a first sync of a big history,
/// `history`, `seed` of millions, `check` of a big store): how many, how fast and, when the
/// total is known, about how long is left. Drawn only when stderr is a terminal and the command
/// was not given `--quiet`, at most ten times a second, cut to the terminal's width so a
/// carriage return always lands on the same line. A pipe or a log file gets nothing.
final class ProgressLine: Sendable {
    /// What one drawing says: the work, how far it got, and (if known) how far it goes.
    struct Reading: Equatable, Sendable {
        var label: String
        var done: Int
        var total: Int?
        var unit: String
    }

    private struct State {
        /// The label of the work being measured: new work (another conversation) starts a new rate.
        var label: String?
        var started: ContinuousClock.Instant?
        var lastDrawn: ContinuousClock.Instant?
        var drewSomething = false
    }

    private let enabled: Bool
    private let state = Lock(State())
    /// The shortest time between two drawings.
    static let interval = Duration.milliseconds(100)

    /// `quiet` is the command's `--quiet`; without a terminal on stderr nothing is ever drawn.
    init(output: Output, quiet: Bool) {
        enabled = output.isTerminalError && !quiet
    }

    /// Reports progress; draws when the last drawing is at least ``interval`` old or the work
    /// changed (a new label, whose rate is measured from now).
    func update(_ reading: Reading) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let line: String? = state.withLock { state in
            if state.label != reading.label {
                state.label = reading.label
                state.started = now
            } else if let last = state.lastDrawn, now - last < Self.interval {
                return nil
            }
            let started = state.started ?? now
            state.lastDrawn = now
            state.drewSomething = true
            return Self.text(reading, elapsed: now - started)
        }
        guard let line else { return }
        let width = TerminalDevice.size(of: StandardIO.error)?.columns ?? 80
        Output.write(
            StandardIO.error, "\r\u{1B}[K" + Terminal.fit(TerminalSafe.visible(line), width: max(width - 1, 1)))
    }

    /// Clears the line, so the command's own result or error starts at the left margin.
    func finish() {
        guard enabled else { return }
        let drew = state.withLock { state in
            defer { state.drewSomething = false }
            return state.drewSomething
        }
        if drew { Output.write(StandardIO.error, "\r\u{1B}[K") }
    }

    /// `seeding: 250,000 of 1,000,000 messages, 312,000/s, about 3 s left`. Rate and estimate
    /// appear once a tenth of a second has passed, so the first drawing does not divide by almost nothing.
    static func text(_ reading: Reading, elapsed: Duration) -> String {
        var text = "\(reading.label): \(grouped(reading.done))"
        if let total = reading.total { text += " of \(grouped(max(total, reading.done)))" }
        text += " \(reading.unit)"
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        guard seconds >= 0.1, reading.done > 0 else { return text }
        let rate = Double(reading.done) / seconds
        text += ", \(grouped(Int(rate.rounded())))/s"
        if let total = reading.total, total > reading.done {
            text += ", about \(duration(Double(total - reading.done) / rate)) left"
        }
        return text
    }

    /// `1234567` → `1,234,567`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return number < 0 ? "-" + result : result
    }

    /// A rough time left: `3 s`, `4 min`, `2 h 5 min`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 1e9 else { return "a long time" }
        let whole = max(Int(seconds.rounded(.up)), 1)
        if whole < 90 { return "\(whole) s" }
        let minutes = (whole + 30) / 60
        if minutes < 90 { return "\(minutes) min" }
        return "\(minutes / 60) h \(minutes % 60) min"
    }
}

extension ProgressLine.Reading {
    /// A sync or history fetch's progress: `dinner: catching up 5,000 of 100,000 messages`.
    init(_ progress: SyncProgress) {
        self.init(
            label: "\(progress.conversation): " + (progress.work == .catchUp ? "catching up" : "fetching older"),
            done: progress.fetched,
            total: progress.remaining.map { progress.fetched + $0 },
            unit: "messages")
    }
}
