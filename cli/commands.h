// The commands behind `oversim list|run|check|compare|demo`: flag structs as CLI11 fills them,
// validated here into scenarios with one-line errors naming the bad value.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "cli/demo.h"
#include "protocols/simulation.h"

namespace oversim::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct WorkloadFlags {
  int buyers = protocols::Workload{}.buyers;
  int64_t stock = protocols::Workload{}.stock;
  int skus = protocols::Workload{}.skus;
  int apps = protocols::Workload{}.app_nodes;
  std::string arrival = "burst";
  std::string burst_window = "5ms";
  std::string poisson_mean = "10ms";
  int retries = 0;
  std::string double_click = "0/1";
  std::string remote_call = "20ms";
  std::string lock_ttl = "500ms";
  std::string lock_wait = "2s";
  std::string gateway_timeout = "300ms";
  std::string replication_lag = "20ms";
};

struct RunFlags {
  std::string variant;
  std::string faults = "none";
  uint64_t seed = 1;
  std::string trace = "text";
  std::string properties;
  bool check_determinism = false;
  WorkloadFlags workload;
};

struct CheckFlags {
  std::string variant;
  std::string faults = "none";
  uint64_t seeds = 100;
  uint64_t first_seed = 1;
  unsigned jobs = 2;
  std::string properties;
  bool no_shrink = false;
  WorkloadFlags workload;
};

struct CompareFlags {
  uint64_t seeds = 20;
  uint64_t first_seed = 1;
  unsigned jobs = 2;
  std::string variants;
  std::string profiles;
  WorkloadFlags workload;
};

protocols::Workload to_workload(const WorkloadFlags& flags);

int list_command(const std::string& what);
int run_command(const RunFlags& flags);
int check_command(const CheckFlags& flags);
int compare_command(const CompareFlags& flags);
int demo_command(DemoOptions options, const std::string& faults, const std::string& trace, bool check_determinism);
int determinism_command();

}  // namespace oversim::cli
