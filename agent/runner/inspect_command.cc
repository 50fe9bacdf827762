#include "agent/runner/inspect_command.h"

#include "agent/datasets/dataset_loader.h"
#include "agent/datasets/dataset_stats.h"
#include "common/status/status_macros.h"

namespace kvbench::runner {

absl::Status RunInspectCommand(const std::string& dataset, const std::string& dataset_path,
                               int num_rounds, int min_chunk_rounds, bool json,
                               std::ostream& out) {
  KV_ASSIGN_OR_RETURN(datasets::Dataset loaded, datasets::LoadDataset(dataset, dataset_path));
  datasets::DatasetStats stats = datasets::ComputeStats(loaded, num_rounds, min_chunk_rounds);
  if (json) {
    out << stats.ToJson().dump() << "\n";
    return absl::OkStatus();
  }
  out << "dataset           " << stats.code << " (" << dataset_path << ")\n"
      << "sessions          " << stats.sessions << " (skipped " << stats.skipped_sessions
      << ")\n"
      << "rounds            " << stats.rounds << "\n"
      << "rounds/session    min " << stats.rounds_per_session.min << " median "
      << stats.rounds_per_session.median << " max " << stats.rounds_per_session.max << "\n"
      << "messages/round    min " << stats.messages_per_round.min << " median "
      << stats.messages_per_round.median << " max " << stats.messages_per_round.max << "\n"
      << "virtual users     " << stats.virtual_users << " (num_rounds " << stats.num_rounds
      << ")\n";
  if (!stats.chunking_error.empty()) out << "chunking          " << stats.chunking_error << "\n";
  for (const std::string& reason : loaded.skip_reasons) out << "skipped           " << reason << "\n";
  return absl::OkStatus();
}

}  // namespace kvbench::runner
