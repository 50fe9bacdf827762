#pragma once

namespace kvbench::testing {

// The demo's tau2-bench airline file (deploy/examples/datasets) and its SHA-256, as the dataset
// registry (agent/datasets/registry) pins it.
inline constexpr char kTau2File[] = "tau2_airline_gpt-4.1_results.json";
inline constexpr char kTau2Sha256[] =
    "57f7bba1fd0366019867f5c0af877e73b98e68040e36d0e7b064df7f7bb1c289";

}  // namespace kvbench::testing
