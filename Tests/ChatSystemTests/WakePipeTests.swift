import ChatSystem
import Testing

@Suite struct WakePipeTests {
    @Test("signal makes the read end readable; drain makes poll wait again")
    func signalAndDrain() throws {
        let pipe = try WakePipe()
        #expect(try Poll.wait([pipe.readEnd], timeoutMilliseconds: 0) == [PollResult(readable: false, hungUp: false)])
        pipe.signal()
        pipe.signal()
        #expect(try Poll.wait([pipe.readEnd], timeoutMilliseconds: 10_000)[0].readable)
        pipe.drain()
        #expect(try Poll.wait([pipe.readEnd], timeoutMilliseconds: 0)[0].readable == false)
    }
}
