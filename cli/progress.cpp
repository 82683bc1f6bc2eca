#include "cli/progress.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <unistd.h>

namespace oversim::cli {

namespace {
bool stderr_is_terminal() {
  const char* term = std::getenv("TERM");
  return isatty(STDERR_FILENO) == 1 && (term == nullptr || std::strcmp(term, "dumb") != 0);
}
}  // namespace

std::string format_eta(double seconds) {
  if (seconds < 1) return fmt::format("{:.0f}ms", seconds * 1000);
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

Progress::Progress(std::string what, uint64_t total)
    : what_(std::move(what)), total_(total), enabled_(stderr_is_terminal()), started_(std::chrono::steady_clock::now()), last_(started_) {}

Progress::~Progress() { finish(); }

void Progress::skip(uint64_t runs) {
  const std::lock_guard<std::mutex> lock(mu_);
  total_ -= std::min(runs, total_);
}

void Progress::update(uint64_t runs, uint64_t violating) {
  if (!enabled_) return;
  const std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (paused_ || (drawn_ && now - last_ < std::chrono::milliseconds(100))) return;
  last_ = now;
  drawn_ = true;
  const uint64_t done = runs;
  const double elapsed = std::chrono::duration<double>(now - started_).count();
  const std::string eta = done == 0 || done >= total_ ? std::string("-") : format_eta(elapsed / static_cast<double>(done) * static_cast<double>(total_ - done));
  fmt::print(stderr, "\r{}: {}/{} runs, {} violating, {} elapsed, about {} left\x1b[K", what_, done, total_, violating, format_eta(elapsed), eta);
  std::fflush(stderr);
}

void Progress::erase() {
  if (!drawn_) return;
  fmt::print(stderr, "\r\x1b[K");
  std::fflush(stderr);
  drawn_ = false;
}

void Progress::finish() {
  const std::lock_guard<std::mutex> lock(mu_);
  erase();
}

void Progress::pause() {
  const std::lock_guard<std::mutex> lock(mu_);
  erase();
  paused_ = true;
}

void Progress::resume() {
  const std::lock_guard<std::mutex> lock(mu_);
  paused_ = false;
}

}  // namespace oversim::cli
