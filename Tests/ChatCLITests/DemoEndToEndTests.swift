import Foundation
import Testing
import ChatTestSupport

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
        // The temporary directory is removed at the end.
        let root = text.split(separator: "\n").first.map { String($0.split(separator: " ").last ?? "") } ?? ""
        #expect(root.hasPrefix("/") && !FileManager.default.fileExists(atPath: root))
    }

    @Test("chatdir demo --tls tells the same story over https and wss",
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
