#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "agent/datasets/conversation.h"

namespace kvbench::datasets {

// min / median / max of a list of counts (all 0 when the list is empty).
struct CountSummary {
  int min = 0;
  double median = 0;
  int max = 0;
};

// What `kv-runner inspect` prints about a loaded dataset.
struct DatasetStats {
  std::string code;
  int sessions = 0;
  int rounds = 0;
  int skipped_sessions = 0;
  int num_rounds = 0;
  int virtual_users = 0;          // for num_rounds; 0 when chunking refuses it
  std::string chunking_error;     // why chunking refused num_rounds, else empty
  CountSummary rounds_per_session;
  CountSummary messages_per_round;

  // {"code","sessions","rounds","skipped_sessions","num_rounds","virtual_users",
  //  "rounds_per_session":{"min","median","max"},"messages_per_round":{...}[,"chunking_error"]}
  nlohmann::json ToJson() const;
};

DatasetStats ComputeStats(const Dataset& dataset, int num_rounds, int min_chunk_rounds);

}  // namespace kvbench::datasets
