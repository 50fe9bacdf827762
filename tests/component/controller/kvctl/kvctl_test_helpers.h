#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace kvbench::testing {

// The outcome of one kvctl command line run in-process, as main runs it.
struct KvctlRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `args` through kvctl's command tree with these environment variables (and no others)
// and this wall clock.
KvctlRun RunKvctl(const std::vector<std::string>& args,
                  const std::map<std::string, std::string>& env = {},
                  absl::Time now = absl::FromUnixSeconds(1'800'000'000));

// Times `needle` occurs in `haystack`.
int Count(const std::string& haystack, const std::string& needle);

}  // namespace kvbench::testing
