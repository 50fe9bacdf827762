#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kvbench::datasets {

// One file of a known dataset: where it lives in the cache, where it comes from, and how a copy
// is checked. Pure data (see KnownDatasets()).
struct DatasetFileSpec {
  // Path relative to the cache dir and to a mirror (folder or base URL): `<mirror>/<name>`.
  std::string name;
  // The pinned upstream URL.
  std::string url;
  // Bytes, when known; a copy of another size is rejected.
  std::optional<int64_t> size;
  // Lower-case hex SHA-256, when known. When empty, the first download records the server's
  // ETag and the digest it computed in the `<name>.meta` sidecar, and later checks use those.
  std::string sha256;
};

// A dataset code as jobs name it (`dataset.code` in a job spec) and the files it is made of.
struct DatasetSpec {
  std::string code;
  std::string description;
  // What is known about the files' identity and what is not (shown by `kvctl dataset list`).
  std::string note;
  std::vector<DatasetFileSpec> files;
};

// Every dataset kvbench knows how to fetch, in a stable order.
const std::vector<DatasetSpec>& KnownDatasets();

// The dataset with this code, or null.
const DatasetSpec* FindDataset(const std::string& code);

// "sammshen, tau2-bench-v1": the known codes, for error messages.
std::string KnownDatasetCodes();

}  // namespace kvbench::datasets
