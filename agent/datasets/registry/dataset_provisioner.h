#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::datasets {

// Before a scenario starts: a job's dataset that the registry knows — its code is
// known and its path is one of that dataset's files (or empty: all of them) — is pulled into
// the agent's dataset cache through a DatasetFetcher (upstream, or the mirror when one is set)
// and verified; a cached, verified copy is a no-op. A missing or corrupt file fails here with
// its path and the checksum mismatch, before any process starts. Datasets the registry does not
// know (a user's file in a mirror folder) are left to DatasetResolver. Blocking (network, disk):
// call it from the scenario's thread.
class DatasetProvisioner {
 public:
  // `cache_dir` empty: provisioning is off (nothing to fetch into).
  DatasetProvisioner(std::string cache_dir, std::string mirror);

  // `working` (may be empty) is called as the transfer moves (each chunk written): a pull of
  // gigabytes that takes minutes lets its scenario say it is alive (ScenarioDriver's keepalive).
  absl::Status Provision(const v1::DatasetRef& ref,
                         const std::function<void()>& working = nullptr) const;

 private:
  std::string cache_dir_;
  std::string mirror_;
};

}  // namespace kvbench::datasets
