#include "agent/datasets/registry/dataset_pull.h"

#include <utility>

#include "agent/datasets/registry/curl_file_downloader.h"

namespace kvbench::datasets {

absl::StatusOr<std::vector<FetchedFile>> PullDataset(const DatasetSpec& spec, DatasetCache cache,
                                                     FetchOptions options) {
  CurlFileDownloader downloader;
  DatasetFetcher fetcher(std::move(cache), &downloader, std::move(options));
  return fetcher.Pull(spec);
}

}  // namespace kvbench::datasets
