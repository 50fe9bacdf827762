#include "agent/sampler/l2_store_failures.h"

#include <algorithm>

#include "agent/sampler/metric_catalog.h"

namespace kvbench::sampler {
namespace {

double ValueOr0(const std::map<std::string, double>& values, const char* key) {
  auto it = values.find(key);
  return it == values.end() ? 0 : it->second;
}

// Whether the server exports `key`: seen in a scrape after the first (the sampler fills the
// "before" scrape's missing counters with 0, so the first says nothing).
bool Exports(const std::vector<const std::map<std::string, double>*>& scrapes, const char* key) {
  return std::any_of(scrapes.begin() + 1, scrapes.end(),
                     [key](const auto* values) { return values->count(key) != 0; });
}

}  // namespace

std::optional<L2StoreCounts> CountL2StoreFailures(
    const std::vector<const std::map<std::string, double>*>& scrapes) {
  if (scrapes.size() < 2 || !Exports(scrapes, keys::kL2SubmittedChunks)) return std::nullopt;
  const std::map<std::string, double>& first = *scrapes.front();
  const std::map<std::string, double>& last = *scrapes.back();
  auto increase = [&](const std::map<std::string, double>& at, const char* key) {
    return std::max(0.0, ValueOr0(at, key) - ValueOr0(first, key));
  };
  L2StoreCounts counts;
  counts.submitted_chunks = static_cast<int64_t>(increase(last, keys::kL2SubmittedChunks));
  if (Exports(scrapes, keys::kL2StoreFailedChunks)) {
    counts.failed_chunks = static_cast<int64_t>(increase(last, keys::kL2StoreFailedChunks));
    return counts;
  }
  // The last scrape with every submitted store task completed (failed or not).
  for (auto it = scrapes.rbegin(); it != scrapes.rend(); ++it) {
    const std::map<std::string, double>& at = **it;
    if (ValueOr0(at, keys::kL2SubmittedRequests) != ValueOr0(at, keys::kL2CompletedRequests)) {
      continue;
    }
    const double unstored =
        increase(at, keys::kL2SubmittedChunks) -
        (ValueOr0(at, keys::kL2StoredChunks) - ValueOr0(first, keys::kL2StoredChunks));
    counts.failed_chunks = static_cast<int64_t>(std::max(0.0, unstored));
    break;
  }
  return counts;
}

}  // namespace kvbench::sampler
