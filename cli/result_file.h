// Result files (`check --json FILE`, `explore --json FILE`): written whole or not at all. The
// command line is checked first without touching FILE, and the result goes to a temporary file in
// FILE's directory that is renamed over FILE at the end, so bad input, a failed run or an
// interrupt (SIGINT, SIGTERM) mid-sweep leaves the previous result as it was.
#pragma once

#include <string>

namespace oversim::cli {

// Throws UsageError (naming `flag`) when no result could be written at `path`: it is a directory,
// or its directory takes no new file. Creates and removes a temporary file there; never opens
// `path` itself. An empty path is no file: nothing to check.
void check_result_path(const char* flag, const std::string& path);

// Writes `text` to a temporary file beside `path`, flushes it to disk and renames it over `path`
// (an atomic replace on one file system). SIGINT and SIGTERM are held off while the temporary
// file exists, so an interrupt comes before it (the old file stays) or after the rename. Throws
// UsageError when the write fails; the temporary file is removed then.
void write_result_file(const char* flag, const std::string& path, const std::string& text);

}  // namespace oversim::cli
