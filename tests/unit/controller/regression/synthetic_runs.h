#pragma once

// Synthetic runs for the regression statistics' tests: virtual users whose rounds have
// log-normal TTFTs around a level, with a per-user factor (users differ: a long context is slow
// every round), drawn from a seed.

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kvbench/v1/event.pb.h"

namespace kvbench::regression::testing {

struct RunShape {
  int users = 32;
  int rounds = 8;
  double ttft_s = 0.2;          // median TTFT
  double user_spread = 0.3;     // sigma of the per-user log factor
  double request_spread = 0.2;  // sigma of the per-request log factor
  int output_tokens = 64;
  double tpot_s = 0.02;
  int prompt_tokens = 1000;
  int cached_tokens = 600;   // per request
  double round_gap_s = 1.0;  // scheduled spacing of a user's rounds
};

inline std::vector<v1::RequestRow> SyntheticRows(const RunShape& shape, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<v1::RequestRow> rows;
  for (int u = 0; u < shape.users; ++u) {
    const double user_factor = std::exp(shape.user_spread * normal(random));
    for (int r = 1; r <= shape.rounds; ++r) {
      v1::RequestRow row;
      row.set_user_id(absl::StrCat("u", u));
      row.set_round(r);
      row.set_scheduled_s((r - 1) * shape.round_gap_s + 0.01 * u);
      row.set_sent_s(row.scheduled_s());
      const double ttft =
          shape.ttft_s * user_factor * std::exp(shape.request_spread * normal(random));
      row.set_ttft_s(ttft);
      row.set_first_token_s(row.scheduled_s() + ttft);
      row.set_end_s(row.first_token_s() + shape.tpot_s * (shape.output_tokens - 1));
      row.set_prompt_tokens(shape.prompt_tokens);
      row.set_output_tokens(shape.output_tokens);
      row.set_cached_tokens(shape.cached_tokens);
      row.set_http_status(200);
      row.set_attempts(1);
      rows.push_back(row);
    }
  }
  return rows;
}

}  // namespace kvbench::regression::testing
