#include "agent/sampler/external_query_counting.h"

#include <catch2/catch.hpp>

namespace kvbench::sampler {
namespace {

// 10,000 prompt tokens queried, 6,000 hit the GPU's prefix cache.
TEST_CASE("External query counting is told from the counters") {
  CHECK(ExternalQueryCounting(10'000, 6'000, 4'000) == kPromptMinusLocal);
  CHECK(ExternalQueryCounting(10'000, 6'000, 10'000) == kWholePrompt);
  // Within 2% of the queries: requests in flight at a scrape, preemptions.
  CHECK(ExternalQueryCounting(10'000, 6'000, 4'150) == kPromptMinusLocal);
  CHECK(ExternalQueryCounting(10'000, 6'000, 9'850) == kWholePrompt);
  // Neither fits.
  CHECK(ExternalQueryCounting(10'000, 6'000, 7'000).empty());
  // No local hits: both readings give the same number, so it cannot be told.
  CHECK(ExternalQueryCounting(10'000, 0, 10'000).empty());
  // No external queries (GPU tier) or no queries.
  CHECK(ExternalQueryCounting(10'000, 6'000, 0).empty());
  CHECK(ExternalQueryCounting(0, 0, 0).empty());
}

}  // namespace
}  // namespace kvbench::sampler
