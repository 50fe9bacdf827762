// kvctl report DIR --html FILE through the whole command tree, on a local run's folder as
// `kvctl run --out` leaves it (job.json and each scenario's result.json).

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "common/json/proto_json.h"
#include "controller/client/local_job_files.h"
#include "tests/component/controller/kvctl/kvctl_test_helpers.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/controller/report/synthetic_job.h"

namespace kvbench::testing {
namespace {

namespace fs = std::filesystem;

// <out>/<job_id>/job.json and <out>/<job_id>/<scenario>/result.json.
void WriteLocalRun(const TempDir& out, const v1::Job& job) {
  const fs::path job_dir = fs::path(out.path()) / job.job_id();
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    const fs::path scenario_dir = job_dir / status.scenario().scenario_id();
    fs::create_directories(scenario_dir);
    out.WriteFile((fs::path(job.job_id()) / status.scenario().scenario_id() /
                   client::kResultFileName)
                      .string(),
                  ProtoToJson(status.result(), /*pretty=*/true));
  }
  REQUIRE(client::WriteLocalJob(job_dir.string(), job).ok());
}

TEST_CASE("kvctl report writes the HTML report of a local run folder") {
  TempDir out;
  WriteLocalRun(out, SyntheticJob());
  const std::string html_path = out.File("report.html");

  const KvctlRun run = RunKvctl({"report", out.path(), "--html", html_path});

  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out == html_path + "\n");
  const std::string html = out.ReadFile("report.html");
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(Count(html, "<svg class=\"chart\"") == 9);
  CHECK(Count(html, "data-points=\"0\"") == 0);
  CHECK(html.find(kSyntheticJobId) != std::string::npos);
  // Validity computed from the results (the folder has none): a verdict per group.
  CHECK(Count(html, "class=\"verdict verdict-") == 2);
  CHECK(!fs::exists(html_path + ".tmp"));
}

TEST_CASE("kvctl report on one job's folder gives the same report") {
  TempDir out;
  WriteLocalRun(out, SyntheticJob());
  const KvctlRun from_out = RunKvctl({"report", out.path(), "--html", out.File("a.html")});
  const KvctlRun from_job = RunKvctl(
      {"report", out.File(kSyntheticJobId), "--html", out.File("b.html")});
  REQUIRE(from_out.exit_code == 0);
  REQUIRE(from_job.exit_code == 0);
  CHECK(out.ReadFile("a.html") == out.ReadFile("b.html"));
}

TEST_CASE("kvctl report fails clearly without a job or a writable file") {
  TempDir out;
  const KvctlRun empty = RunKvctl({"report", out.path(), "--html", out.File("r.html")});
  CHECK(empty.exit_code != 0);
  CHECK(empty.err.find("holds no kvbench job") != std::string::npos);

  const KvctlRun no_controller = RunKvctl({"report", "job-123", "--html", out.File("r.html")});
  CHECK(no_controller.exit_code != 0);
  CHECK(no_controller.err.find("KV_CONTROLLER") != std::string::npos);

  WriteLocalRun(out, SyntheticJob());
  const KvctlRun unwritable =
      RunKvctl({"report", out.path(), "--html", out.File("no-such-dir/r.html")});
  CHECK(unwritable.exit_code != 0);
  CHECK(unwritable.err.find("cannot write") != std::string::npos);

  const KvctlRun no_html = RunKvctl({"report", out.path()});
  CHECK(no_html.exit_code == 2);
}

}  // namespace
}  // namespace kvbench::testing
