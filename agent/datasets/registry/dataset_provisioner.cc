#include "agent/datasets/registry/dataset_provisioner.h"

#include "absl/strings/str_cat.h"
#include "agent/datasets/registry/curl_file_downloader.h"
#include "agent/datasets/registry/dataset_cache.h"
#include "agent/datasets/registry/dataset_fetcher.h"
#include "agent/datasets/registry/dataset_registry.h"
#include "common/log/logging.h"

namespace kvbench::datasets {

DatasetProvisioner::DatasetProvisioner(std::string cache_dir, std::string mirror)
    : cache_dir_(std::move(cache_dir)), mirror_(std::move(mirror)) {}

absl::Status DatasetProvisioner::Provision(const v1::DatasetRef& ref,
                                           const std::function<void()>& working) const {
  if (cache_dir_.empty()) return absl::OkStatus();
  const DatasetSpec* spec = FindDataset(ref.code());
  if (spec == nullptr) return absl::OkStatus();
  CurlFileDownloader downloader;
  FetchOptions options;
  options.mirror = mirror_;
  if (working) options.on_progress = [&working](const FetchProgress&) { working(); };
  DatasetFetcher fetcher(DatasetCache(cache_dir_), &downloader, options);
  // A path the registry does not list (a user's file in a mirror) is the resolver's to find.
  for (const DatasetFileSpec& file : spec->files) {
    if (!ref.path().empty() && ref.path() != file.name) continue;
    absl::StatusOr<FetchedFile> fetched = fetcher.Fetch(file);
    if (!fetched.ok()) {
      return absl::Status(fetched.status().code(),
                          absl::StrCat("dataset ", ref.code(), ": ", fetched.status().message()));
    }
    KV_LOG(INFO) << "dataset ready code=" << ref.code() << " file=" << file.name
                 << " how=" << FetchOutcomeName(fetched->outcome);
  }
  return absl::OkStatus();
}

}  // namespace kvbench::datasets
