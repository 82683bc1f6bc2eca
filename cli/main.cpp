// The `oversim` command. Exit status: 0 everything asserted holds, 1 a property was violated
// (or a determinism check failed), 2 bad usage or bad input (one line on stderr naming the
// problem), 3 an internal error (a bug in oversim: please report it with the command line).
#include "cli/oversim_main.h"

int main(int argc, char** argv) { return oversim::cli::oversim_main(argc, argv); }
