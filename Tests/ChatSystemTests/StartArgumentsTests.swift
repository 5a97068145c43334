import CStart
import Testing

/// The command line CStart keeps from glibc's call of the program's constructors: in the release
/// binary it is the Swift runtime's argv (Sources/CStart/CStart.c), so it must be the runtime's own
/// answer, element for element.
@Suite struct StartArgumentsTests {
    @Test("the arguments glibc passed to the constructors are CommandLine.arguments")
    func sameAsTheRuntime() throws {
        var count: Int32 = -1
        let arguments = try #require(chatdir_start_arguments(&count))
        let kept = (0..<Int(count)).map { index in arguments[index].map { String(cString: $0) } }
        #expect(kept == CommandLine.arguments.map { Optional($0) })
        #expect(arguments[Int(count)] == nil) // NULL-terminated, as the runtime expects argv
    }
}
