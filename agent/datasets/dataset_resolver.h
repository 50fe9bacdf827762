#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::datasets {

// The environment variable naming a dataset mirror folder (air-gapped nodes, the demo, tests).
inline constexpr char kDatasetMirrorEnv[] = "KV_DATASET_MIRROR";

// The files each dataset code is known by (pinned upstream names), tried in order when a job
// names only the code. Codes without known files need an explicit path.
const std::vector<std::string>& KnownDatasetFiles(const std::string& code);

// Finds a job's dataset on the agent: `ref.path` (or, when empty, each known file of `ref.code`)
// inside each root in order (the agent's dataset_cache_dir, dataset_mirror, $KV_DATASET_MIRROR).
// A path that is absolute, contains "..", or resolves (through symlinks) outside its root is
// refused with INVALID_ARGUMENT: a spec cannot reach outside the agent's directories. With
// `allow_user_paths` (local `kvctl run` only), an absolute path or one relative to the working
// directory that exists is also accepted. NOT_FOUND lists what was looked for and where.
class DatasetResolver {
 public:
  DatasetResolver(std::vector<std::string> roots, bool allow_user_paths);
  // The roots from an agent's config plus $KV_DATASET_MIRROR (empty entries dropped).
  static std::vector<std::string> Roots(const std::string& cache_dir, const std::string& mirror);

  absl::StatusOr<std::string> Resolve(const v1::DatasetRef& ref) const;

 private:
  absl::StatusOr<std::string> ResolveUnder(const std::string& root, const std::string& path) const;

  std::vector<std::string> roots_;
  bool allow_user_paths_;
};

}  // namespace kvbench::datasets
