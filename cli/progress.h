// A one-line progress display on stderr for sweeps (check, compare): runs done of the total,
// violations so far, elapsed time and an estimate of what is left, redrawn at most ten times a
// second and erased when the sweep ends. Only when stderr is a terminal (and TERM is not
// "dumb"): a pipe, a file or CI's log gets nothing extra. Wall time is read for the display only;
// it never reaches a run.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

namespace oversim::cli {

class Progress {
 public:
  Progress(std::string what, uint64_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool shown() const { return enabled_; }
  // `runs` and `violating` so far, counting from this display's start.
  void update(uint64_t runs, uint64_t violating);
  // Runs counted in the total that will not run (a compare cell that does not apply).
  void skip(uint64_t runs);
  void finish();
  // Runs `print` (which writes to stdout) with the line erased and not drawn, then flushes
  // stdout: compare prints a row while other threads go on updating.
  template <class Print>
  void above(Print&& print) {
    pause();
    print();
    std::fflush(stdout);
    resume();
  }

 private:
  void pause();
  void resume();
  void erase();  // with mu_ held
  std::string what_;
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  bool paused_ = false;
  std::mutex mu_;  // every member function may be called from any thread
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_;
};

// "1m05s", "12s", "850ms"
std::string format_eta(double seconds);

}  // namespace oversim::cli
