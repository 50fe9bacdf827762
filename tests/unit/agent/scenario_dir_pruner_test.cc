// Retention of the agent's scenario folders (agent/scenario_dir_pruner: unpruned,
// scenarios/ grows for good). Real folders in a temp dir, ages set with utimensat.

#include "agent/scenario_dir_pruner.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/temp_dir.h"

namespace kvbench::agent {
namespace {

namespace fs = std::filesystem;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

// Sets the modification time of `path` to `at`.
void Touch(const std::string& path, absl::Time at) {
  const timespec times[2] = {absl::ToTimespec(at), absl::ToTimespec(at)};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) == 0);
}

// An attempt folder with a result and a log, every entry last changed at `at`.
std::string MakeAttempt(const WorkDirLayout& layout, const std::string& job,
                        const std::string& scenario, int attempt, absl::Time at) {
  const std::string dir = layout.ScenarioDir(job, scenario, attempt);
  fs::create_directories(dir + "/logs");
  std::ofstream(dir + "/result.json") << "{}";
  std::ofstream(dir + "/logs/replica-0.log") << "line\n";
  for (const std::string& path :
       {dir + "/logs/replica-0.log", dir + "/result.json", dir + "/logs", dir}) {
    Touch(path, at);
  }
  return dir;
}

TEST_CASE("Scenario folders past the retention are removed, newer and running ones kept",
          "[scenario_dir_pruner]") {
  testing::TempDir dir;
  const WorkDirLayout layout = WorkDirLayout::ForWorkDir(dir.File("work"));
  REQUIRE(layout.EnsureCreated().ok());
  const absl::Duration retention = absl::Hours(24 * 30);
  const std::string old_job =
      MakeAttempt(layout, "j-old", "00-gpu-c8", 1, kNow - absl::Hours(24 * 40));
  const std::string old_retry =
      MakeAttempt(layout, "j-old", "00-gpu-c8", 2, kNow - absl::Hours(24 * 31));
  const std::string recent = MakeAttempt(layout, "j-new", "00-gpu-c8", 1, kNow - absl::Hours(24));
  // Old by its folder, but a log under it changed yesterday: still in use.
  const std::string touched =
      MakeAttempt(layout, "j-new", "01-cpu-ram-c8", 1, kNow - absl::Hours(24 * 90));
  Touch(touched + "/logs/replica-0.log", kNow - absl::Hours(24));
  // The running attempt is kept whatever its age.
  const std::string running =
      MakeAttempt(layout, "j-run", "00-gpu-c8", 1, kNow - absl::Hours(24 * 90));

  CHECK(PruneScenarioDirs(layout, retention, kNow, running) == 2);
  CHECK_FALSE(fs::exists(old_job));
  CHECK_FALSE(fs::exists(old_retry));
  CHECK_FALSE(fs::exists(layout.scenarios_dir() + "/j-old"));  // the emptied job folder too
  CHECK(fs::exists(recent));
  CHECK(fs::exists(touched));
  CHECK(fs::exists(running));
  CHECK(PruneScenarioDirs(layout, retention, kNow, running) == 0);  // nothing more to remove
  // Retention 0 keeps everything.
  CHECK(PruneScenarioDirs(layout, absl::ZeroDuration(), kNow + absl::Hours(24 * 999), "") == 0);
  CHECK(fs::exists(recent));
  // Once the run ends, its folder ages like any other.
  CHECK(PruneScenarioDirs(layout, retention, kNow, "") == 1);
  CHECK_FALSE(fs::exists(running));
}

}  // namespace
}  // namespace kvbench::agent
