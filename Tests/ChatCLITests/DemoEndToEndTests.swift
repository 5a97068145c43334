import ChatTestSupport
import Foundation
import Testing

@Suite(.ownThreads) struct DemoEndToEndTests {
    @Test("chatdir demo runs every step and ends with identical devices")
    func demo() throws {
        let result = try ChatdirProcess.run(["demo"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let text = result.stdout
        #expect(text.contains("◷ pending"))
        #expect(text.contains("chatdir sync → exit 75: server unreachable"))
        #expect(text.contains("Hi Bob! Still on for dinner tonight?  ✓ sent"))
        #expect(text.contains("Hi Bob! Still on for dinner tonight?  ✓✓ read"))
        #expect(text.contains("the server holds 5 messages, 5 distinct client IDs"))
        #expect(text.contains("no differences"))
        #expect(!text.contains("gave up waiting"))
        // The tick that changed between steps 6 and 7 is explained where it changes.
        #expect(
            text.contains("Parking now  ✓ sent\n   ✓ sent: the server has the two new ones; bob's device is offline"))
        #expect(
            text.contains("Parking now  ✓✓ delivered\n   ✓ sent in step 6 is ✓✓ delivered now: bob's worker runs again")
        )
        Self.expectChatScreen(text)
        // The temporary directory is removed at the end, and the last words say how to keep it.
        let root = text.split(separator: "\n").first.map { String($0.split(separator: " ").last ?? "") } ?? ""
        #expect(root.hasPrefix("/") && !FileManager.default.fileExists(atPath: root))
        #expect(
            text.hasSuffix(
                "\nNext\n   The demo's stores were temporary and are gone. To keep them and open the chat screen:\n     chatdir demo --keep\n"
                    + "   Your own store and server: README.md, \"Syncing with a server\" (or `man chatdir`).\n"))
    }

    /// Step 8: one frame of the chat screen in a box, every line the same width, with the
    /// conversation's title, its newest rows and their ticks, the status line and the input.
    static func expectChatScreen(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "8. The chat screen: `chatdir chat ab` on alice's laptop"),
            let top = lines[start...].firstIndex(where: { $0.hasPrefix("   ┌") }),
            let bottom = lines[top...].firstIndex(where: { $0.hasPrefix("   └") })
        else {
            Issue.record("no chat screen in step 8:\n\(text)", sourceLocation: sourceLocation)
            return
        }
        let frame = lines[top...bottom]
        #expect(frame.count == 14 + 2, "\(frame)", sourceLocation: sourceLocation)
        #expect(
            Set(frame.map { $0.count }).count == 1, "ragged box:\n\(frame.joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        let inside = frame.dropFirst().dropLast()
        #expect(inside.allSatisfy { $0.hasPrefix("   │") && $0.hasSuffix("│") }, sourceLocation: sourceLocation)
        #expect(inside.first?.hasPrefix("   │Alice and Bob  ab") == true, sourceLocation: sourceLocation)
        #expect(
            inside.contains { $0.contains("alice  Hi Bob! Still on for dinner tonight?  ✓✓ read") },
            sourceLocation: sourceLocation)
        #expect(inside.contains { $0.contains("alice  Parking now  ✓✓ delivered") }, sourceLocation: sourceLocation)
        #expect(inside.contains { $0.hasPrefix("   │  no sync worker running") }, sourceLocation: sourceLocation)
        #expect(inside.last?.hasPrefix("   │> ") == true, sourceLocation: sourceLocation)
    }

    @Test(
        "chatdir demo --keep ends with commands whose paths exist: the chat screen's store is a sound store of alice's")
    func keep() throws {
        let result = try ChatdirProcess.run(["demo", "--keep"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let root = result.stdout.split(separator: "\n").first.map { String($0.split(separator: " ").last ?? "") } ?? ""
        #expect(root.hasPrefix("/tmp/") || root.hasPrefix("/"), "\(root)")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let chat = try #require(result.lines.first { $0.hasPrefix("     chatdir chat --store ") })
        #expect(chat == "     chatdir chat --store \(root)/alice-laptop ab")
        #expect(result.lines.contains { $0.hasPrefix("     chatdir serve --data \(root)/server --port ") })
        let view = try ChatdirProcess.run(["view", "--store", root + "/alice-laptop", "ab"])
        #expect(
            view.status == 0 && view.lines.last?.hasSuffix("Parking now  ✓✓ delivered") == true,
            "\(view.stdout)\(view.stderr)")
        #expect(try ChatdirProcess.run(["check", root + "/alice-laptop"]).status == 0)
    }

    @Test(
        "chatdir demo --tls tells the same story over https and wss",
        .enabled(if: TestCertificates.available, "needs the openssl command line (CI installs it)"))
    func demoOverTLS() throws {
        let result = try ChatdirProcess.run(["demo", "--tls"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let text = result.stdout
        #expect(text.contains("server: https://127.0.0.1:"))
        #expect(text.contains("Hi Bob! Still on for dinner tonight?  ✓✓ read"))
        #expect(text.contains("the server holds 5 messages, 5 distinct client IDs"))
        #expect(text.contains("no differences"))
        #expect(!text.contains("gave up waiting"))
    }
}
