#pragma once

#include <string>
#include <vector>

#include "kvbench/v1/job.pb.h"

namespace kvbench::testing {

// A small SIM job over the demo's tau2 airline dataset: 5 rounds, 16 sessions (the controller's
// unit and cluster tests submit it).
inline v1::JobSpec SimJobSpec(const std::string& name, const std::vector<v1::Tier>& tiers,
                              const std::vector<int>& concurrency) {
  v1::JobSpec spec;
  spec.set_name(name);
  spec.set_model("meta-llama/Llama-3.1-8B-Instruct");
  spec.set_build(v1::NVIDIA);
  spec.set_engine(v1::SIM);
  for (v1::Tier tier : tiers) spec.add_tiers(tier);
  for (int users : concurrency) spec.add_concurrency(users);
  spec.mutable_dataset()->set_code("tau2-bench-v1");
  spec.mutable_dataset()->set_path("tau2_airline_gpt-4.1_results.json");
  spec.set_num_rounds(5);
  spec.set_sessions(16);
  return spec;
}

}  // namespace kvbench::testing
