#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/datasets/registry/dataset_cache.h"
#include "agent/datasets/registry/dataset_registry.h"
#include "agent/datasets/registry/file_downloader.h"

namespace kvbench::datasets {

// Downloads of one file tried in a row while each brings more bytes (a cut transfer resumes).
inline constexpr int kDefaultFetchAttempts = 4;

struct FetchProgress {
  std::string file;  // DatasetFileSpec::name
  int64_t bytes_done = 0;
  std::optional<int64_t> total;
};

struct FetchOptions {
  // Where files come from instead of their upstream URLs (air-gapped clusters): "" = upstream;
  // "http://..." or "https://..." = a base URL serving `<base>/<name>`; anything else = a local
  // folder holding `<folder>/<name>`, copied into the cache.
  std::string mirror;
  int max_attempts = kDefaultFetchAttempts;
  std::function<void(const FetchProgress&)> on_progress;  // may be empty
};

// How one file came to be in the cache.
enum class FetchOutcome { kAlreadyCached, kDownloaded, kResumed, kCopied };
const char* FetchOutcomeName(FetchOutcome outcome);

struct FetchedFile {
  std::string name;
  std::string path;  // in the cache
  FetchOutcome outcome = FetchOutcome::kAlreadyCached;
  std::string sha256;
  int64_t size = 0;
  int downloads = 0;  // HTTP transfers made (0 for a cache hit or a folder copy)
};

// Brings a dataset's files into the cache (DatasetCache), verified: each goes to `<name>.part`
// (resumed with a Range request when one is left from a cut transfer; restarted on a 200), is
// checked (size and SHA-256 against the registry's pin, else against the digest recorded with the
// same ETag), then renamed into place with its `.meta` sidecar. A file already cached whose
// digest checks out is not fetched again (no request). Errors:
//   NOT_FOUND        the source has no such file (HTTP 404, missing in the mirror folder)
//   DATA_LOSS        checksum or size mismatch: the message names the file, expected and actual
//                    digest; the .part is removed and nothing lands in the cache
//   FAILED_PRECONDITION  an unpinned file changed upstream (ETag differs from the recorded one)
//   UNAVAILABLE      transfer failures after the attempts (what arrived stays in .part)
//   PERMISSION_DENIED HTTP 401/403, or the cache is not writable
class DatasetFetcher {
 public:
  // `downloader` must outlive the fetcher.
  DatasetFetcher(DatasetCache cache, FileDownloader* downloader, FetchOptions options);

  absl::StatusOr<std::vector<FetchedFile>> Pull(const DatasetSpec& spec);
  absl::StatusOr<FetchedFile> Fetch(const DatasetFileSpec& file);

 private:
  class CacheFileLock;
  // OK with the digest when the cached file checks out; anything else means fetch it.
  absl::StatusOr<std::string> CheckCached(const DatasetFileSpec& file) const;
  absl::Status CopyFromFolder(const DatasetFileSpec& file, const std::string& source);
  // Fills `etag` and `downloads`; `resumed` when a Range request was answered with 206.
  absl::Status DownloadToPart(const DatasetFileSpec& file, const std::string& url,
                              std::string* etag, int* downloads, bool* resumed);
  // Checks the .part and renames it into place; removes it on a mismatch.
  absl::StatusOr<std::string> VerifyAndInstall(const DatasetFileSpec& file,
                                               const std::string& source, const std::string& etag,
                                               const std::optional<DatasetFileMeta>& previous);
  std::string SourceUrl(const DatasetFileSpec& file) const;
  bool MirrorIsFolder() const;

  DatasetCache cache_;
  FileDownloader* downloader_;
  FetchOptions options_;
};

}  // namespace kvbench::datasets
