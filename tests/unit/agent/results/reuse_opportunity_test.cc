#include "agent/results/reuse_opportunity.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

namespace kvbench::agent::results {
namespace {

// Token ids start, start+1, ..., start+n-1.
std::vector<std::int32_t> Seq(std::int32_t start, int n) {
  std::vector<std::int32_t> out;
  for (int i = 0; i < n; ++i) out.push_back(start + i);
  return out;
}

std::vector<std::int32_t> Concat(std::vector<std::int32_t> a, const std::vector<std::int32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct ReuseCase {
  const char* name;
  std::vector<PromptTokens> prompts;
  double same_user_pct;
  double any_user_pct;
};

TEST_CASE("Reuse opportunity table", "[results]") {
  const std::vector<ReuseCase> cases = {
      {"single request", {{"a", Seq(0, 512)}}, 0, 0},
      // Second request repeats 2 full chunks of 768: 512 / 1280.
      {"growing conversation", {{"a", Seq(0, 512)}, {"a", Seq(0, 768)}}, 40, 40},
      // Another user's prefix: reusable for any user only. 512 / (512 + 612).
      {"cross user",
       {{"a", Seq(0, 512)}, {"b", Concat(Seq(0, 512), Seq(1000, 100))}},
       0,
       512.0 / 1124 * 100},
      // Same second-chunk tokens behind a different first chunk: the chain differs.
      {"prefix chain not chunk equality",
       {{"a", Seq(0, 512)}, {"a", Concat(Seq(5000, 256), Seq(256, 256))}},
       0,
       0},
      // Partial chunks never count, though they count in the denominator.
      {"partial chunks only", {{"a", Seq(0, 200)}, {"a", Seq(0, 200)}}, 0, 0},
      // a, b, a again: a's third request reuses its own 256 and (via b) 512 of any user's.
      {"mixed",
       {{"a", Seq(0, 256)}, {"b", Seq(0, 512)}, {"a", Seq(0, 512)}},
       256.0 / 1280 * 100,
       (256.0 + 512) / 1280 * 100},
  };
  for (const ReuseCase& c : cases) {
    INFO(c.name);
    const ReuseOpportunity got = ComputeReuseOpportunity(c.prompts);
    REQUIRE(got.same_user_pct.has_value());
    REQUIRE(got.any_user_pct.has_value());
    CHECK(*got.same_user_pct == Approx(c.same_user_pct).margin(1e-9));
    CHECK(*got.any_user_pct == Approx(c.any_user_pct).margin(1e-9));
  }
}

TEST_CASE("Reuse opportunity is null without prompt tokens", "[results]") {
  CHECK_FALSE(ComputeReuseOpportunity({}).same_user_pct.has_value());
  CHECK_FALSE(ComputeReuseOpportunity({{"a", {}}}).any_user_pct.has_value());
}

}  // namespace
}  // namespace kvbench::agent::results
