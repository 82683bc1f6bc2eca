#include "cli/result_file.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "cli/flags.h"

namespace oversim::cli {

namespace {

std::string directory_of(const std::string& path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return dir.empty() ? std::string(".") : dir.string();
}

// "dir/.name.XXXXXX": hidden, in the same directory (a rename never crosses file systems).
std::string temporary_template(const std::string& path) {
  std::string name = ".";
  name.append(std::filesystem::path(path).filename().string());
  name.append(".XXXXXX");
  return (std::filesystem::path(directory_of(path)) / name).string();
}

// Holds SIGINT and SIGTERM off for its lifetime; a signal that came meanwhile is delivered when
// it ends.
class SignalsHeld {
 public:
  SignalsHeld() {
    sigset_t held;
    sigemptyset(&held);
    sigaddset(&held, SIGINT);
    sigaddset(&held, SIGTERM);
    sigprocmask(SIG_BLOCK, &held, &previous_);
  }
  ~SignalsHeld() { sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t previous_;
};

std::string errno_text(int error) { return std::error_code(error, std::generic_category()).message(); }

}  // namespace

void check_result_path(const char* flag, const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError(fmt::format("{}: cannot write '{}': it is a directory", flag, path));
  const std::string dir = directory_of(path);
  if (!std::filesystem::is_directory(dir, ec)) throw UsageError(fmt::format("{}: cannot write '{}': no directory '{}'", flag, path, dir));
  std::string name = temporary_template(path);
  const int fd = mkstemp(name.data());
  if (fd < 0) throw UsageError(fmt::format("{}: cannot write '{}': {} takes no new file ({})", flag, path, dir, errno_text(errno)));
  close(fd);
  unlink(name.c_str());
}

void write_result_file(const char* flag, const std::string& path, const std::string& text) {
  if (path.empty()) return;
  const SignalsHeld held;
  std::string name = temporary_template(path);
  const int fd = mkstemp(name.data());
  if (fd < 0) throw UsageError(fmt::format("{}: cannot write '{}': {}", flag, path, errno_text(errno)));
  // mkstemp makes the file 0600; a result file gets what a plain create would (0666 less umask).
  const mode_t mask = umask(0);
  umask(mask);
  bool ok = fchmod(fd, static_cast<mode_t>(0666) & ~mask) == 0;
  size_t written = 0;
  while (ok && written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) written += static_cast<size_t>(n);
  }
  int error = ok ? 0 : errno;
  ok = ok && fsync(fd) == 0;
  if (!ok && error == 0) error = errno;
  ok = close(fd) == 0 && ok;
  if (!ok && error == 0) error = errno;
  ok = ok && std::rename(name.c_str(), path.c_str()) == 0;
  if (!ok && error == 0) error = errno;
  if (!ok) {
    unlink(name.c_str());
    throw UsageError(fmt::format("{}: cannot write '{}': {}", flag, path, errno_text(error)));
  }
}

}  // namespace oversim::cli
