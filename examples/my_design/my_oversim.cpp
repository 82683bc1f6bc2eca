// The oversim command with this project's designs added. Reproduce lines rebuild this binary
// first, so a line copied from a CI log runs the code that failed.
#include "cli/oversim_main.h"

int main(int argc, char** argv) {
  return oversim::cli::oversim_main(argc, argv, {.program = MY_OVERSIM_PATH, .rebuild = "cmake --build " MY_BUILD_DIR " --target my_oversim"});
}
