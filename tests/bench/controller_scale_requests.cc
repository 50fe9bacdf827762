#include "tests/bench/controller_scale_requests.h"

#include <cstdint>
#include <random>

#include "absl/strings/str_cat.h"

namespace kvbench::bench {
namespace {

constexpr int kUsers = 32;
constexpr int kRounds = 5;
constexpr int kOutputTokens = 64;
constexpr int kTimedOutEvery = 500;  // one failed request in this many

}  // namespace

v1::RequestRecords MakeRequestChunk(int agent, int first_index, int rows, int total) {
  std::mt19937_64 random((static_cast<uint64_t>(agent) << 32) ^ static_cast<uint64_t>(first_index));
  std::uniform_real_distribution<double> ttft(0.02, 0.6);
  std::uniform_real_distribution<double> decode(0.3, 2.5);
  std::uniform_int_distribution<int> prompt(800, 30000);
  v1::RequestRecords chunk;
  chunk.set_first_index(first_index);
  chunk.set_total(total);
  chunk.mutable_rows()->Reserve(rows);
  double clock_s = first_index * 0.05;
  for (int i = first_index; i < first_index + rows; ++i) {
    const int user = i % kUsers;
    v1::RequestRow* row = chunk.add_rows();
    row->set_user_id(absl::StrCat("user-", user));
    row->set_session_id(absl::StrCat("agent-", agent, "-session-", user));
    row->set_round(1 + (i / kUsers) % kRounds);
    clock_s += 0.05;
    row->set_scheduled_s(clock_s);
    row->set_sent_s(clock_s + 0.0004);
    const bool failed = i % kTimedOutEvery == kTimedOutEvery - 1;
    const double end_s = clock_s + decode(random);
    row->set_end_s(end_s);
    row->set_prompt_tokens(prompt(random));
    row->set_attempts(1);
    if (failed) {
      row->set_error("timeout");
      continue;
    }
    const double first_token_s = clock_s + ttft(random);
    row->set_first_token_s(first_token_s);
    row->set_ttft_s(first_token_s - clock_s);
    row->set_output_tokens(kOutputTokens);
    row->set_cached_tokens(row->prompt_tokens() / 2);
    row->set_http_status(200);
  }
  return chunk;
}

}  // namespace kvbench::bench
