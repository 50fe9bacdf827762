// CountL2StoreFailures (agent/sampler/l2_store_failures.h): hand-computed tables of the cache
// server's counters at each scrape of a replay, both generations of LMCache's L2 metrics.

#include "agent/sampler/l2_store_failures.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "agent/sampler/metric_catalog.h"

namespace kvbench::sampler {
namespace {

using Values = std::map<std::string, double>;

// One scrape of the l2.py@0b5897e9 generation: tasks submitted / completed, chunks submitted /
// stored.
Values ScrapeValues(double tasks, double completed, double chunks, double stored) {
  return {{keys::kL2SubmittedRequests, tasks},
          {keys::kL2CompletedRequests, completed},
          {keys::kL2SubmittedChunks, chunks},
          {keys::kL2StoredChunks, stored}};
}

std::optional<L2StoreCounts> Count(const std::vector<Values>& scrapes) {
  std::vector<const Values*> pointers;
  for (const Values& values : scrapes) pointers.push_back(&values);
  return CountL2StoreFailures(pointers);
}

TEST_CASE("L2 store failures: submitted minus stored chunks at the last scrape with none in flight",
          "[l2_store_failures]") {
  SECTION("every store succeeded, one task in flight at the end") {
    // before: 2 tasks done (10 chunks); mid: 6 tasks, 30 chunks, all stored; after: 7 submitted,
    // 6 completed (5 chunks in flight).
    auto counts =
        Count({ScrapeValues(2, 2, 10, 10), ScrapeValues(6, 6, 30, 30), ScrapeValues(7, 6, 35, 30)});
    REQUIRE(counts.has_value());
    CHECK(counts->submitted_chunks == 25);
    CHECK(counts->failed_chunks == 0);  // in flight is not failed
  }
  SECTION("the disk filled: tasks complete, chunks do not") {
    auto counts =
        Count({ScrapeValues(2, 2, 10, 10), ScrapeValues(6, 6, 30, 22), ScrapeValues(9, 9, 45, 22)});
    REQUIRE(counts.has_value());
    CHECK(counts->submitted_chunks == 35);
    CHECK(counts->failed_chunks == 23);  // (45 - 10) - (22 - 10)
  }
  SECTION("failures up to the last settled scrape are counted when the end is in flight") {
    auto counts =
        Count({ScrapeValues(0, 0, 0, 0), ScrapeValues(4, 4, 20, 12), ScrapeValues(6, 5, 30, 17)});
    REQUIRE(counts.has_value());
    CHECK(counts->failed_chunks == 8);  // at the second scrape: 20 submitted, 12 stored
  }
  SECTION("counters without a series before the first store count as 0") {
    auto counts = Count({Values{}, ScrapeValues(3, 3, 12, 12)});
    REQUIRE(counts.has_value());
    CHECK(counts->submitted_chunks == 12);
    CHECK(counts->failed_chunks == 0);
  }
}

TEST_CASE("L2 store failures: the failed-keys counter where the build has it",
          "[l2_store_failures]") {
  Values before = {{keys::kL2SubmittedChunks, 100}, {keys::kL2StoreFailedChunks, 4}};
  Values after = {{keys::kL2SubmittedChunks, 160},
                  {keys::kL2StoreFailedChunks, 10},
                  {keys::kL2SubmittedRequests, 9},
                  {keys::kL2CompletedRequests, 3}};
  auto counts = Count({before, after});
  REQUIRE(counts.has_value());
  CHECK(counts->submitted_chunks == 60);
  CHECK(counts->failed_chunks == 6);
}

TEST_CASE("L2 store failures: a 'before' scrape filled with zeros says nothing of what is exported",
          "[l2_store_failures]") {
  // The sampler fills every catalog counter missing from "before" with 0, the failed-keys
  // counter of the newer generation included: a build without it must still be judged by
  // submitted minus stored.
  Values before = {{keys::kL2SubmittedChunks, 0},
                   {keys::kL2StoredChunks, 0},
                   {keys::kL2SubmittedRequests, 0},
                   {keys::kL2CompletedRequests, 0},
                   {keys::kL2StoreFailedChunks, 0}};
  auto counts = Count({before, ScrapeValues(27, 27, 88, 8)});
  REQUIRE(counts.has_value());
  CHECK(counts->submitted_chunks == 88);
  CHECK(counts->failed_chunks == 80);
  // And an older build without a submit counter at all reports nothing.
  CHECK_FALSE(Count({before, Values{{keys::kL2StoredChunks, 8}}}));
}

TEST_CASE("L2 store failures: unknown without a submit counter or a second scrape",
          "[l2_store_failures]") {
  CHECK_FALSE(Count({Values{{keys::kL2StoredChunks, 5}}, Values{{keys::kL2StoredChunks, 9}}}));
  CHECK_FALSE(Count({ScrapeValues(1, 1, 5, 5)}));
  CHECK_FALSE(Count({}));
}

}  // namespace
}  // namespace kvbench::sampler
