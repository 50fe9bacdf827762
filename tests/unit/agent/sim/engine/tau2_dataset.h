#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvbench::sim::testing {

// The real conversations in tests/data/datasets/tau2_airline_gpt-4.1_lmcache_format.jsonl, read in
// place (the project ships no data): one row per recorded LLM call; consecutive rows of a session
// extend each other's message list.
struct Tau2Row {
  nlohmann::json input;  // the OpenAI message list of the call
  int output_length = 0;
};

struct Tau2Session {
  std::string id;
  std::vector<Tau2Row> rows;
};

// Path of the file (KV_TEST_DATASETS is set by the test CMakeLists).
std::string Tau2DatasetPath();
// Sessions in file order; aborts the test binary with a message if the file is unreadable.
const std::vector<Tau2Session>& Tau2Sessions();

}  // namespace kvbench::sim::testing
