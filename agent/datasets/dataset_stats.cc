#include "agent/datasets/dataset_stats.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "agent/datasets/dataset_loader.h"

namespace kvbench::datasets {
namespace {

CountSummary Summarize(std::vector<int> counts) {
  CountSummary summary;
  if (counts.empty()) return summary;
  std::sort(counts.begin(), counts.end());
  const size_t n = counts.size();
  summary.min = counts.front();
  summary.max = counts.back();
  summary.median = n % 2 == 1 ? counts[n / 2] : (counts[n / 2 - 1] + counts[n / 2]) / 2.0;
  return summary;
}

nlohmann::json SummaryJson(const CountSummary& summary) {
  return {{"min", summary.min}, {"median", summary.median}, {"max", summary.max}};
}

}  // namespace

nlohmann::json DatasetStats::ToJson() const {
  nlohmann::json out = {{"code", code},
                        {"sessions", sessions},
                        {"rounds", rounds},
                        {"skipped_sessions", skipped_sessions},
                        {"num_rounds", num_rounds},
                        {"virtual_users", virtual_users},
                        {"rounds_per_session", SummaryJson(rounds_per_session)},
                        {"messages_per_round", SummaryJson(messages_per_round)}};
  if (!chunking_error.empty()) out["chunking_error"] = chunking_error;
  return out;
}

DatasetStats ComputeStats(const Dataset& dataset, int num_rounds, int min_chunk_rounds) {
  DatasetStats stats;
  stats.code = dataset.code;
  stats.sessions = static_cast<int>(dataset.sessions.size());
  stats.skipped_sessions = dataset.skipped_sessions;
  stats.num_rounds = num_rounds;
  std::vector<int> rounds_per_session;
  std::vector<int> messages_per_round;
  for (const Session& session : dataset.sessions) {
    rounds_per_session.push_back(static_cast<int>(session.rounds.size()));
    for (const Round& round : session.rounds) {
      messages_per_round.push_back(static_cast<int>(round.messages.size()));
    }
  }
  stats.rounds = static_cast<int>(messages_per_round.size());
  stats.rounds_per_session = Summarize(std::move(rounds_per_session));
  stats.messages_per_round = Summarize(std::move(messages_per_round));
  absl::StatusOr<std::vector<VirtualUser>> users =
      ChunkIntoUsers(dataset, num_rounds, min_chunk_rounds);
  if (users.ok()) {
    stats.virtual_users = static_cast<int>(users->size());
  } else {
    stats.chunking_error = std::string(users.status().message());
  }
  return stats;
}

}  // namespace kvbench::datasets
