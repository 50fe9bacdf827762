#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/runner/request_record.h"

namespace kvbench::agent::results::testing {

// A successful request; ttft = first - scheduled.
inline runner::RequestRecord Ok(const std::string& user, int round, double scheduled, double sent,
                                double first, double end, int prompt, int output) {
  runner::RequestRecord r;
  r.user_id = user;
  r.session_id = "s-" + user;
  r.round = round;
  r.scheduled_s = scheduled;
  r.sent_s = sent;
  r.first_token_s = first;
  r.end_s = end;
  r.ttft_s = first - scheduled;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.http_status = 200;
  return r;
}

inline runner::RequestRecord Failed(const std::string& user, int round, double scheduled,
                                    double sent, double end, int prompt) {
  runner::RequestRecord r;
  r.user_id = user;
  r.session_id = "s-" + user;
  r.round = round;
  r.scheduled_s = scheduled;
  r.sent_s = sent;
  r.end_s = end;
  r.prompt_tokens = prompt;
  r.error = "timeout";
  return r;
}

// 2 users x 3 rounds; b's round 3 times out. Hand-computed values are in the tests.
//   user round sched sent  first end  ttft prompt out  tpot
//   a    1     0     0.01  0.5   1.5  0.5  100    11   0.1
//   a    2     1.5   1.52  2.5   3.5  1.0  200    11   0.1
//   a    3     3.5   3.5   5.0   6.0  1.5  300    1    -
//   b    1     0     0.02  1.0   2.0  1.0  100    21   0.05
//   b    2     2.0   2.03  4.0   5.0  2.0  200    3    0.5
//   b    3     5.0   5.1   -     8.0  -    300    0    -   (error)
inline std::vector<runner::RequestRecord> TwoUsersThreeRounds() {
  return {
      Ok("a", 1, 0.0, 0.01, 0.5, 1.5, 100, 11), Ok("b", 1, 0.0, 0.02, 1.0, 2.0, 100, 21),
      Ok("a", 2, 1.5, 1.52, 2.5, 3.5, 200, 11), Ok("b", 2, 2.0, 2.03, 4.0, 5.0, 200, 3),
      Ok("a", 3, 3.5, 3.5, 5.0, 6.0, 300, 1),   Failed("b", 3, 5.0, 5.1, 8.0, 300),
  };
}

}  // namespace kvbench::agent::results::testing
