import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// The runtime channel's fallback under `/tmp` with the real binary, as another local user
/// would attack it: `/tmp/chatdir-<uid>` (or the store-key folder in it) made first, open to
/// all, with `opens` a symlink to a file of the victim's. Each test runs `chatdir` in a mount
/// namespace of its own with a fresh tmpfs on `/tmp` (`unshare -m`), so the real path is used
/// and no other test sees it; planting a directory owned by another user takes root, as CI runs.
@Suite(
    .ownThreads,
    .enabled(if: getuid() == 0, "a mount namespace and another user's directory take root (CI runs as root)"))
struct RuntimeChannelEndToEndTests {
    /// A scratch directory outside `/tmp` (hidden in the namespace): the store and the victim's file.
    final class Scratch {
        let path: String
        init() throws {
            path = "/var/tmp/chatdir-test-\(UUID().uuidString)"
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Runs `setup` (shell, as root, on the namespace's fresh `/tmp`), then `chatdir arguments…`
    /// without XDG_RUNTIME_DIR, in one private mount namespace.
    /// A sanitizer's reports go where its `log_path` says, often under `/tmp`, which the
    /// namespace hides: the child writes them into `scratch` instead, and they are moved to the
    /// `log_path` afterwards, where the run that looks for them finds them.
    func run(setup: String, _ arguments: [String], scratch: Scratch) throws -> SpawnedRunResult {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "XDG_RUNTIME_DIR")
        environment["NO_COLOR"] = "1"
        environment["TZ"] = "UTC"
        var reports: [String] = []
        for key in ["ASAN_OPTIONS", "TSAN_OPTIONS"] {
            guard let options = environment[key] else { continue }
            environment[key] = options.split(separator: ":").map { option in
                guard option.hasPrefix("log_path=") else { return String(option) }
                reports.append(String(option.dropFirst("log_path=".count)))
                return "log_path=" + scratch.path + "/report"
            }.joined(separator: ":")
        }
        let script = "set -e; mount -t tmpfs -o mode=1777 tmpfs /tmp; \(setup); exec \"$0\" \"$@\""
        let result = try spawnAndWait(
            "/usr/bin/unshare",
            ["-m", "--propagation", "private", "/bin/sh", "-c", script, ChatdirProcess.executable.path] + arguments,
            environment: environment)
        if let destination = reports.first {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []
            where name.hasPrefix("report.") {
                try? FileManager.default.moveItem(
                    atPath: scratch.path + "/" + name,
                    toPath: destination + "." + name.dropFirst("report.".count) + ".namespace")
            }
        }
        return result
    }

    @Test(
        "view in a store whose /tmp/chatdir-<uid> another user made: the rows, a warning naming the directory and its owner, the victim's file untouched",
        arguments: ["top", "store key"])
    func squattedFallback(_ which: String) throws {
        let scratch = try Scratch()
        let store = try copyStore(packageRoot.appendingPathComponent("SampleData/alice"), into: scratch)
        let victim = scratch.path + "/victim.txt"
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: victim))
        let channel = RuntimeChannel(storeRoot: store, runtimeDirectory: nil).root
        let top = "/tmp/chatdir-\(getuid())"
        let setup: String
        let refused: String
        if which == "top" {
            setup = "mkdir -m 777 \(top) \(channel); chown 4242 \(top) \(channel); ln -s \(victim) \(channel)/opens"
            refused = top
        } else {
            setup =
                "mkdir -m 700 \(top); mkdir -m 777 \(channel); chown 4242 \(channel); ln -s \(victim) \(channel)/opens"
            refused = channel
        }
        let result = try run(setup: setup, ["view", "--store", store, "dinner"], scratch: scratch)
        let stdout = String(decoding: result.stdout, as: UTF8.self)
        let stderr = String(decoding: result.stderr, as: UTF8.self)
        #expect(result.status == 0, "\(stderr)")
        #expect(stdout.contains("Bring cash, they don't take cards"))
        #expect(
            stderr
                == "chatdir view: warning: the runtime directory is refused, so typing, older-page requests and open times are not shared with other chatdir processes: open \(refused): owned by uid 4242, not by this user (uid 0); another user may have made it to read or plant files here: remove it (it is not chatdir's) or set XDG_RUNTIME_DIR\n"
        )
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine\n")
    }

    @Test("status names the refused directory; on a fresh /tmp, view says nothing more than its rows")
    func statusAndSound() throws {
        let scratch = try Scratch()
        let store = try copyStore(packageRoot.appendingPathComponent("SampleData/alice"), into: scratch)
        let top = "/tmp/chatdir-\(getuid())"
        let squatted = try run(
            setup: "mkdir -m 777 \(top); chown 4242 \(top)", ["status", "--store", store], scratch: scratch)
        let lines = String(decoding: squatted.stdout, as: UTF8.self)
        #expect(
            lines.contains(
                "warning: the runtime directory is refused, so typing, older-page requests and open times are not shared with other chatdir processes: open \(top): owned by uid 4242"
            ), "\(lines)")
        let sound = try run(setup: "true", ["view", "--store", store, "dinner"], scratch: scratch)
        #expect(sound.status == 0)
        #expect(sound.stderr.isEmpty, "\(String(decoding: sound.stderr, as: UTF8.self))")
    }
}

/// Copies a committed store into `scratch` and returns its path.
private func copyStore(_ source: URL, into scratch: RuntimeChannelEndToEndTests.Scratch) throws -> String {
    let target = scratch.path + "/store"
    try FileManager.default.copyItem(atPath: source.path, toPath: target)
    return target
}
