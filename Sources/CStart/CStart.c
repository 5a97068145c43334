// The release chatdir's own answer to the Swift runtime's question "what is argv?".
//
// The statically linked runtime answers it in CommandLine.cpp, whose object brings a static
// constructor that runs at every start, whether a command looks at its arguments or not: it
// opens /proc/self/maps (the kernel writes out every mapping of the process) and sscanf(3)s
// each line to find the stack, then walks back from `environ` to argv. That was 111,000 of
// view's 1.9 M instructions, six system calls and the pages of scanf, for what glibc already
// passes to every constructor of the program (argc, argv, envp).
//
// Defining the one symbol the standard library calls, `_swift_stdlib_getUnsafeArgvArgc` (Swift
// calling convention), in an object of the program keeps the linker from taking CommandLine.cpp's
// object out of libswiftCore.a at all, and its constructor with it. Should a later runtime
// reference another symbol of that object, the link fails with a duplicate definition instead of
// running two answers. Only the release build defines it (Package.swift): debug builds link the
// runtime as a shared library, whose own internal definition is the one it calls.
#include "CStart.h"

#include <stddef.h>
#include <stdlib.h>  // <features.h>, which defines __GLIBC__ on glibc

static char **startArguments;
static int startCount;

#if defined(__GLIBC__)
// glibc calls the program's constructors with (argc, argv, envp): csu/libc-start.c, call_init.
__attribute__((constructor)) static void chatdir_keep_start_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    startArguments = argv;
    startCount = argc;
}
#endif

char **chatdir_start_arguments(int *count) {
    *count = startArguments != NULL ? startCount : 0;
    return startArguments;
}

#if defined(CHATDIR_OWN_ARGV) && defined(__GLIBC__)
__attribute__((swiftcall)) char **_swift_stdlib_getUnsafeArgvArgc(int *count) {
    static char *none[] = {NULL};
    char **arguments = chatdir_start_arguments(count);
    return arguments != NULL ? arguments : none;
}
#endif
