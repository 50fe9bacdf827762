#include "tests/unit/agent/sim/engine/tau2_dataset.h"

#include <fstream>
#include <string>
#include <vector>

#include "common/log/logging.h"

namespace kvbench::sim::testing {
namespace {

std::vector<Tau2Session> Load() {
  std::ifstream in(Tau2DatasetPath());
  KV_CHECK(in.good()) << "cannot read " << Tau2DatasetPath()
                      << " (tests/data/datasets of the checkout)";
  std::vector<Tau2Session> sessions;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const nlohmann::json row = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    KV_CHECK(row.is_object()) << "bad row in " << Tau2DatasetPath();
    const std::string session = row.at("session_id").get<std::string>();
    if (sessions.empty() || sessions.back().id != session) sessions.push_back({session, {}});
    sessions.back().rows.push_back({row.at("input"), row.at("output_length").get<int>()});
  }
  return sessions;
}

}  // namespace

std::string Tau2DatasetPath() {
  return std::string(KV_TEST_DATASETS) + "/tau2_airline_gpt-4.1_lmcache_format.jsonl";
}

const std::vector<Tau2Session>& Tau2Sessions() {
  static const std::vector<Tau2Session>* const sessions = new std::vector<Tau2Session>(Load());
  return *sessions;
}

}  // namespace kvbench::sim::testing
