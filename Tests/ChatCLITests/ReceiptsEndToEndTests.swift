import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatCLI

/// `chatdir receipts` against SampleData/alice: dinner's positions are
/// alice 12/10, bob 12/12, carol 12/11, dave 11/8, erin 12/10 (delivered/read); alice sent 2, 11 and 12.
@Suite(.ownThreads) struct ReceiptsEndToEndTests {
    let sample = packageRoot.appendingPathComponent("SampleData/alice")

    @Test("receipts lists every other member with delivered and read, from positions.json")
    func text() throws {
        let result = try ChatdirProcess.run(["receipts", "--store", sample.path, "dinner", "11"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.lines == [
                "dinner 11: delivered to 4 of 4 · read by 2 of 4",
                "  bob    ✓✓ read",
                "  carol  ✓✓ read",
                "  dave   ✓✓ delivered, not read yet",
                "  erin   ✓✓ delivered, not read yet",
            ])
    }

    @Test("--json prints one object with each member's delivered and read")
    func json() throws {
        let result = try ChatdirProcess.run(["receipts", "--store", sample.path, "dinner", "12", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == #"{"conversationId":"dinner","sequence":12,"members":[{"userId":"bob","delivered":true,"read":true},{"userId":"carol","delivered":true,"read":false},{"userId":"dave","delivered":false,"read":false},{"userId":"erin","delivered":true,"read":false}]}"#
                + "\n")
    }

    @Test(
        "another member's message, a sequence not stored, and a conversation without positions are refused with the way out",
        arguments: [
            (
                ["dinner", "3"], Int32(65),
                "chatdir receipts: message 3 of dinner was sent by dave, not by me (alice): receipts are shown for my own messages only"
            ),
            (
                ["dinner", "99"], Int32(65),
                "chatdir receipts: no message 99 is stored in dinner (the stored messages of dinner end at 12; `chatdir sync` fetches newer ones, `chatdir history dinner` older ones)"
            ),
            (
                ["dinner", "x"], Int32(64),
                "chatdir receipts: SEQ must be a whole number from 1 to 9999900000, not \"x\"\nRun `chatdir receipts --help` for usage."
            ),
            (["nobody", "1"], Int32(66), nil),
        ] as [([String], Int32, String?)])
    func refused(_ arguments: [String], _ status: Int32, _ message: String?) throws {
        let result = try ChatdirProcess.run(["receipts", "--store", sample.path] + arguments)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        if let message { #expect(result.stderr == message + "\n") } else { #expect(!result.stderr.isEmpty) }
    }

    @Test("before positions.json is written, receipts says they are not loaded yet (exit 75, try again)")
    func notLoaded() throws {
        let directory = try TemporaryDirectory()
        let store = try copyStore(sample, into: directory)
        try FileManager.default.removeItem(atPath: store + "/conversations/dinner/positions.json")
        let result = try ChatdirProcess.run(["receipts", "--store", store, "dinner", "12"])
        #expect(result.status == 75)
        #expect(
            result.stderr
                == "chatdir receipts: receipts of dinner are not loaded yet (no positions.json): run `chatdir sync --store \(store)`, then ask again\n"
        )
    }

    @Test("the receipts command and the chat screen's panel share one rule: reading implies having")
    func sharedRule() throws {
        let bob = try UserID("bob")
        let carol = try UserID("carol")
        let alice = try UserID("alice")
        let positions = Positions([
            bob: MemberPosition(deliveredUpTo: 0, readUpTo: 5), carol: MemberPosition(deliveredUpTo: 4, readUpTo: 0),
        ])
        let receipts = MessageReceipts(
            sequence: 5, sender: alice, members: [alice, bob, carol, bob], positions: positions)
        #expect(receipts.members.map(\.user) == [bob, carol])
        #expect(receipts.members.map(\.delivered) == [true, false])
        #expect(receipts.members.map(\.read) == [true, false])
        #expect(receipts.summary == "delivered to 1 of 2 · read by 1 of 2")
        #expect(
            MessageReceipts(sequence: 1, sender: alice, members: [alice], positions: positions).summary
                == "no other member")
    }
}
