#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/datasets/registry/dataset_registry.h"

namespace kvbench::datasets {

// The environment variable naming the dataset cache folder.
inline constexpr char kDatasetCacheEnv[] = "KV_DATASET_CACHE";
// Under $XDG_CACHE_HOME (else ~/.cache) when KV_DATASET_CACHE is unset.
inline constexpr char kDefaultCacheSubdir[] = "kvbench/datasets";

// The cache folder: $KV_DATASET_CACHE, else $XDG_CACHE_HOME/kvbench/datasets, else
// $HOME/.cache/kvbench/datasets. FAILED_PRECONDITION when none of them is set.
absl::StatusOr<std::string> DefaultDatasetCacheDir(
    const std::function<std::optional<std::string>(const std::string&)>& getenv);

// What was recorded when a file landed in the cache: the `<name>.meta` sidecar (JSON).
struct DatasetFileMeta {
  std::string sha256;  // digest computed when it landed (checked against the registry's pin)
  int64_t size = 0;
  std::string etag;    // the server's ETag (X-Linked-Etag preferred), "" for folder mirrors
  std::string source;  // URL or path it came from
};

// How a cached file stands, as far as the sidecar tells (no hashing: cheap for `list`).
enum class CachedState { kMissing, kUnverified, kVerified };

// The on-disk layout of the dataset cache: `<root>/<name>`, its `<name>.meta` sidecar and the
// `<name>.part` of a download in progress. Every path is built here.
class DatasetCache {
 public:
  explicit DatasetCache(std::string root) : root_(std::move(root)) {}

  const std::string& root() const { return root_; }
  std::string PathOf(const DatasetFileSpec& file) const;
  std::string PartPathOf(const DatasetFileSpec& file) const;
  std::string MetaPathOf(const DatasetFileSpec& file) const;
  // `<name>.part.etag`: the ETag the .part's bytes came with, sent as If-Range on a resume.
  std::string PartEtagPathOf(const DatasetFileSpec& file) const;

  // NOT_FOUND without a sidecar; DATA_LOSS when it does not parse.
  absl::StatusOr<DatasetFileMeta> ReadMeta(const DatasetFileSpec& file) const;
  absl::Status WriteMeta(const DatasetFileSpec& file, const DatasetFileMeta& meta) const;

  // kVerified: the file exists, its size matches the sidecar (and the pin), and the sidecar's
  // digest matches the pin when there is one.
  CachedState StateOf(const DatasetFileSpec& file) const;

  // Creates the folders holding `file` (and its .part and .meta).
  absl::Status MakeParentDirs(const DatasetFileSpec& file) const;

 private:
  std::string root_;
};

// Size of a file in bytes, or nullopt when it does not exist.
std::optional<int64_t> FileSize(const std::string& path);

}  // namespace kvbench::datasets
