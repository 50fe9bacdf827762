#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "agent/datasets/dataset_resolver.h"
#include "agent/datasets/registry/dataset_cache.h"
#include "agent/datasets/registry/dataset_fetcher.h"
#include "agent/datasets/registry/dataset_registry.h"

namespace kvbench::datasets {

// What `kvctl dataset` uses of the agent's datasets, in one header: the datasets kvbench knows
// (dataset_registry.h), the cache the agent reads them from (dataset_cache.h), where a mirror is
// named (dataset_resolver.h), and PullDataset below.

// Pulls `spec`'s files into `cache` as the agent pulls them (DatasetFetcher over the agent's curl
// downloader): from options.mirror, else upstream; resumed when cut, verified by SHA-256.
absl::StatusOr<std::vector<FetchedFile>> PullDataset(const DatasetSpec& spec, DatasetCache cache,
                                                     FetchOptions options);

}  // namespace kvbench::datasets
