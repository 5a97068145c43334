import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@Suite(.ownThreads) struct SpawnedChildTests {
    /// Feeds `input`, collects the output to EOF and reaps the child, with generous bounds.
    private func finish(_ child: inout SpawnedChild, input: [UInt8] = []) throws -> (output: String, status: Int32?) {
        var written = 0
        if input.isEmpty { child.closeInput() }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(60)
        var open = true
        while open && Date() < deadline {
            if child.inputDescriptor != nil {
                written += (try? child.writeInput(input, from: written)) ?? input.count
                if written >= input.count { child.closeInput() }
            }
            _ = try Poll.wait([child.output.rawValue], timeoutMilliseconds: 20)
            while let count = try child.readOutput(into: &buffer) {
                if count == 0 {
                    open = false
                    break
                }
                output += buffer[0..<count]
            }
        }
        return (String(decoding: output, as: UTF8.self), child.wait(block: true))
    }

    @Test("the child reads its input, writes stdout and stderr to one pipe, and its exit status comes back")
    func roundTrip() throws {
        var child = try SpawnedChild.start(["/bin/sh", "-c", "tr a-z A-Z; echo oops >&2; exit 3"], environment: [])
        let result = try finish(&child, input: Array("hello\n".utf8))
        #expect(result.output == "HELLO\noops\n")
        #expect(result.status == 3)
    }

    @Test("the environment is exactly the one given")
    func environment() throws {
        var child = try SpawnedChild.start(["/bin/sh", "-c", "echo \"$ONE|$HOME\""], environment: ["ONE=1"])
        #expect(try finish(&child).output == "1|\n")
    }

    @Test("the child holds descriptors 0, 1 and 2 only, even with one of ours open without close-on-exec")
    func noLeakedDescriptors() throws {
        let leaky = open("/dev/null", O_RDONLY) // no O_CLOEXEC, as a parent's descriptor would be
        defer { close(leaky) }
        var child = try SpawnedChild.start(["/bin/sh", "-c", "ls /proc/$$/fd"], environment: [])
        #expect(try finish(&child).output.split(separator: "\n") == ["0", "1", "2"])
    }

    @Test("SIGPIPE has its default action in the child, whatever ours is")
    func brokenPipeDefault() throws {
        Signal.brokenPipe.ignore()
        var child = try SpawnedChild.start(["/bin/sh", "-c", "grep SigIgn /proc/$$/status"], environment: [])
        let line = try finish(&child).output
        let mask = UInt64(
            line.split(separator: "\t").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "", radix: 16)
        #expect(mask.map { $0 & (1 << 12) == 0 } == true, "\(line)")
    }

    @Test("a child that never reads does not block the writer; signalling its group ends it and everything it started")
    func neverReads() throws {
        var child = try SpawnedChild.start(["/bin/sh", "-c", "sleep 1000 & sleep 1000"], environment: [])
        let big = [UInt8](repeating: 0x61, count: 1 << 20)
        var written = 0
        for _ in 0..<100 { written += try child.writeInput(big, from: written) }
        #expect(written < big.count) // the pipe filled; the calls returned
        #expect(child.wait(block: false) == nil)
        child.signalGroup(.kill)
        let status = child.wait(block: true)
        #expect(status == Int32(128 + 9))
        child.closeInput()
        // The background sleep held the output pipe too: EOF means it is gone as well.
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(waitUntil { (try? child.readOutput(into: &buffer)) == 0 })
    }

    @Test("a program that does not exist is an error naming it")
    func missingProgram() {
        #expect(throws: SystemError.self) { _ = try SpawnedChild.start(["/nonexistent/hook"], environment: []) }
    }
}
