// The warnings an agent puts on a scenario's result (agent/scenario/result_warnings.h), one table
// row each.

#include "agent/scenario/result_warnings.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>

namespace kvbench::agent {
namespace {

TEST_CASE("Result warnings: the NVME disk check, one table row each") {
  struct Row {
    const char* name;
    std::optional<int64_t> l2_load_bytes;
    std::optional<int64_t> disk_read_bytes;
    double scale;
    bool warns;
  };
  const std::vector<Row> rows = {
      {"all from the page cache", 1'000'000'000, 0, 1.0, true},
      {"a quarter from the disk", 1'000'000'000, 250'000'000, 1.0, true},
      {"just under half", 1'000'000'000, 499'999'999, 1.0, true},
      {"half from the disk", 1'000'000'000, 500'000'000, 1.0, false},
      {"all from the disk, readahead on top", 1'000'000'000, 1'300'000'000, 1.0, false},
      {"nothing loaded from L2", 0, 0, 1.0, false},
      {"L2 load bytes unknown", std::nullopt, 0, 1.0, false},
      {"no block device", 1'000'000'000, std::nullopt, 1.0, false},
      {"simulated: files scaled 1e-3, all read", 1'000'000'000, 1'000'000, 1e-3, false},
      {"simulated: files scaled 1e-3, page cache", 1'000'000'000, 4096, 1e-3, true},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    v1::LmcacheMetrics lmcache;
    if (row.l2_load_bytes) lmcache.set_l2_load_bytes(*row.l2_load_bytes);
    v1::DiskMetrics disk;
    disk.set_device("vda");
    if (row.disk_read_bytes) disk.set_read_bytes_total(*row.disk_read_bytes);
    std::optional<v1::ResultWarning> warning = NvmeReadsWarning(lmcache, disk, row.scale);
    REQUIRE(warning.has_value() == row.warns);
    if (warning) {
      CHECK(warning->code() == kNvmeReadsNotFromDisk);
      CHECK_THAT(warning->message(), Catch::Contains("vda"));
      CHECK_THAT(warning->message(), Catch::Contains("page cache"));
    }
  }
}

TEST_CASE("Result warnings: a cache server never scraped") {
  CHECK_FALSE(CacheServerMetricsWarning(1, "").has_value());
  std::optional<v1::ResultWarning> warning =
      CacheServerMetricsWarning(0, "GET http://127.0.0.1:1/metrics: HTTP 404");
  REQUIRE(warning.has_value());
  CHECK(warning->code() == kCacheServerMetricsUnavailable);
  CHECK_THAT(warning->message(), Catch::Contains("HTTP 404"));
}

}  // namespace
}  // namespace kvbench::agent
