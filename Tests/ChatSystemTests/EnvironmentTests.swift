import ChatSystem
import Testing

@Suite struct EnvironmentTests {
    @Test("the process's environment answers every variable as the whole copy does, and nil for one not set")
    func processLookups() {
        let whole = Sys.processEnvironment()
        #expect(!whole.isEmpty)
        let process = Environment.process
        for (name, value) in whole {
            #expect(process[name] == value, "\(name)")
        }
        #expect(process["CHATDIR_TEST_NEVER_SET_\(whole.count)"] == nil)
        #expect(process.variables == whole)
    }

    @Test("a given set is all there is: the process's variables are not looked at")
    func givenOnly() {
        let given: Environment = ["NO_COLOR": "1", "HOME": "/nowhere"]
        #expect(given["NO_COLOR"] == "1")
        #expect(given["HOME"] == "/nowhere")
        #expect(given["PATH"] == nil)
        #expect(given.variables == ["NO_COLOR": "1", "HOME": "/nowhere"])
        #expect(Environment([:])["HOME"] == nil)
    }
}
