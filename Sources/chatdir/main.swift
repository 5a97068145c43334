import ChatCLI
import ChatSystem

#if canImport(Glibc)
    import Glibc
#endif

// No Foundation here on purpose: `chatdir view` starts in a few milliseconds and a small
// resident size; the environment comes straight from `environ`.
exit(Chatdir.run(Array(CommandLine.arguments.dropFirst()), environment: .process))
