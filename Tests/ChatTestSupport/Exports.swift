// Every test that imports ChatTestSupport has TestProcess too (it lives in ChatProcess so that
// crash-loop, an executable, can use it without the test-only parts).
@_exported import ChatProcess
