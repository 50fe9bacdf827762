#pragma once

#include "absl/time/time.h"
#include "agent/datasets/registry/file_downloader.h"

namespace kvbench::datasets {

// Limits of a download: no whole-transfer timeout (a 2 GB shard takes long), but a stall of
// kDownloadStallTimeout below kDownloadStallBytesPerSecond aborts it (UNAVAILABLE, resumable).
inline constexpr absl::Duration kDownloadConnectTimeout = absl::Seconds(15);
inline constexpr absl::Duration kDownloadStallTimeout = absl::Seconds(60);
inline constexpr long kDownloadStallBytesPerSecond = 1;
inline constexpr long kDownloadMaxRedirects = 8;

// FileDownloader on libcurl's easy interface: http/https only, redirects followed (the hub
// answers with a redirect to its CDN), proxies from the environment honoured except for
// loopback. One handle per call; safe from several threads.
class CurlFileDownloader : public FileDownloader {
 public:
  absl::StatusOr<DownloadResult> Download(const DownloadRequest& request) override;
};

}  // namespace kvbench::datasets
