#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace kvbench::datasets {

// Bytes of a file so far and its full size when the server said.
using DownloadProgress = std::function<void(int64_t bytes_done, std::optional<int64_t> total)>;

struct DownloadRequest {
  std::string url;
  // The file the body goes to.
  std::string path;
  // Bytes already in `path`: > 0 sends `Range: bytes=<offset>-`.
  int64_t offset = 0;
  // Sent verbatim as If-Range with a Range (a strong ETag as the server wrote it, quotes
  // included), so a file changed since the .part began comes back whole (200), not spliced.
  std::string if_range;
  // Called with the raw ETag header of a 200/206 answer (quotes included, "" when none) before
  // its first body byte is written: what a later resume sends as `if_range`. May be empty.
  std::function<void(const std::string& raw_etag)> on_etag;
  DownloadProgress on_progress;  // may be empty
};

struct DownloadResult {
  int http_status = 0;
  // 206: the body was appended at `offset`. 200: `path` was rewritten from byte zero. Any other
  // status leaves `path` as it was.
  bool resumed = false;
  // The ETag of the final response (X-Linked-Etag preferred: the hub's content digest).
  std::string etag;
  // Size of `path` after the transfer.
  int64_t bytes_in_file = 0;
};

// Streams one URL into a file, resuming with a Range request (the seam under DatasetFetcher;
// CurlFileDownloader is the real one, tests run it against a loopback server). Blocks.
// An HTTP error status is not a failed Status: callers read `http_status`. A transfer cut short
// is UNAVAILABLE, with what arrived left in `path` for the next attempt to resume from.
class FileDownloader {
 public:
  virtual ~FileDownloader() = default;
  virtual absl::StatusOr<DownloadResult> Download(const DownloadRequest& request) = 0;
};

}  // namespace kvbench::datasets
