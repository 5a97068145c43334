// The command line as the C library hands it to the program at start (CStart.c says why).
#ifndef CHATDIR_CSTART_H
#define CHATDIR_CSTART_H

/// The arguments the program was started with (argv, count in *count), as glibc passed them to
/// the program's constructors; NULL with *count 0 before those ran or on another C library.
char **chatdir_start_arguments(int *count);

#endif
