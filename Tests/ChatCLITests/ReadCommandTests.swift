import ChatDomain
import ChatTestSupport
import Testing

@testable import ChatCLI

@Suite(.ownThreads) struct ReadCommandTests {
    @Test(
        "read --up-to past the newest stored message says what was asked, the newest there is, and the way out",
        arguments: [
            (
                99999, Optional(3),
                "cannot mark c1 read up to 99999: the newest stored message of c1 is 3; give --up-to 3 or lower (`chatdir sync` fetches newer ones)"
            ),
            (5, nil, "cannot mark c1 read up to 5: c1 has no stored messages yet (`chatdir sync` fetches newer ones)"),
        ])
    func pastNewest(_ upTo: Int, _ newest: Int?, _ message: String) throws {
        #expect(ReadCommand.pastNewest(upTo, newest: newest, in: try ConversationID("c1")) == message)
    }
}
