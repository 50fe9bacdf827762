#include "agent/scenario/result_warnings.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kvbench::agent {
namespace {

v1::ResultWarning Warning(const char* code, std::string message) {
  v1::ResultWarning warning;
  warning.set_code(code);
  warning.set_message(std::move(message));
  return warning;
}

}  // namespace

std::optional<v1::ResultWarning> CacheServerMetricsWarning(int successful_scrapes,
                                                           const std::string& tried) {
  if (successful_scrapes > 0) return std::nullopt;
  return Warning(kCacheServerMetricsUnavailable,
                 absl::StrCat("the cache server's metrics could not be scraped",
                              tried.empty() ? "" : absl::StrCat(" (", tried, ")"),
                              ": every LMCache figure of this result is unknown"));
}

std::optional<v1::ResultWarning> NvmeReadsWarning(const v1::LmcacheMetrics& lmcache,
                                                  const v1::DiskMetrics& disk,
                                                  double l2_bytes_scale) {
  if (!lmcache.has_l2_load_bytes() || !disk.has_read_bytes_total()) return std::nullopt;
  const double expected = static_cast<double>(lmcache.l2_load_bytes()) * l2_bytes_scale;
  if (!(expected >= 1)) return std::nullopt;  // nothing was loaded from L2
  const double share = static_cast<double>(disk.read_bytes_total()) / expected;
  if (share >= kMinDiskReadShare) return std::nullopt;
  return Warning(
      kNvmeReadsNotFromDisk,
      absl::StrFormat("the pool's device %s read %d bytes while LMCache loaded %.0f bytes from L2 "
                      "(%.1f%% < %.0f%%): the NVME tier's hits were served mostly from the page "
                      "cache, so it measured RAM, not the disk (docs/results.md: \"Making the NVME "
                      "tier read the disk\")",
                      disk.device().empty() ? "?" : disk.device(), disk.read_bytes_total(),
                      expected, share * 100, kMinDiskReadShare * 100));
}

std::vector<v1::ResultWarning> CacheServerWarnings(const v1::ScenarioResult& result, v1::Tier tier,
                                                   int successful_scrapes, const std::string& tried,
                                                   double l2_bytes_scale) {
  std::vector<std::optional<v1::ResultWarning>> candidates = {
      CacheServerMetricsWarning(successful_scrapes, tried)};
  if (tier == v1::NVME) {
    candidates.push_back(NvmeReadsWarning(result.lmcache(), result.disk(), l2_bytes_scale));
  }
  std::vector<v1::ResultWarning> warnings;
  for (std::optional<v1::ResultWarning>& warning : candidates) {
    if (warning) warnings.push_back(std::move(*warning));
  }
  return warnings;
}

}  // namespace kvbench::agent
