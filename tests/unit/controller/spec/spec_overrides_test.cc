// kvctl's --set KEY=VALUE: a spec varied without editing its JSON; the result is
// judged by the spec's own checks, and a malformed --set is refused naming it.

#include "controller/spec/spec_overrides.h"

#include <catch2/catch.hpp>
#include <string>

#include "controller/spec/job_spec_loader.h"

namespace kvbench::spec {
namespace {

constexpr char kSpec[] =
    R"({"name": "demo", "model": "sim-model", "engine": "SIM", "build": "NVIDIA",
  "dataset": {"code": "sammshen"}, "num_rounds": 3, "tiers": ["GPU", "CPU_RAM"],
  "concurrency": [2]})";

TEST_CASE("Spec overrides: --set changes fields by dotted path, VALUE as JSON or else a string") {
  absl::StatusOr<v1::JobSpec> spec =
      ParseJobSpec(kSpec, "spec.json",
                   {"engine_overrides.num_gpu_blocks=64", "concurrency=[2, 8]",
                    "tiers=[\"GPU\",\"NVME\"]", "name=demo-b", "sampling.period_s=1"});
  REQUIRE(spec.ok());
  CHECK(spec->engine_overrides().num_gpu_blocks() == 64);
  CHECK(spec->concurrency_size() == 2);
  CHECK(spec->concurrency(1) == 8);
  CHECK(spec->tiers(1) == v1::NVME);
  CHECK(spec->name() == "demo-b");
  CHECK(spec->sampling().period_s() == 1);
}

TEST_CASE("Spec overrides: the result is checked like a file, and a malformed --set is named") {
  absl::StatusOr<v1::JobSpec> bad_value = ParseJobSpec(kSpec, "spec.json", {"concurrency=[0]"});
  REQUIRE_FALSE(bad_value.ok());
  CHECK_THAT(std::string(bad_value.status().message()), Catch::Contains("concurrency"));
  absl::StatusOr<v1::JobSpec> unknown = ParseJobSpec(kSpec, "spec.json", {"sesions=4"});
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(std::string(unknown.status().message()), Catch::Contains("sesions"));

  nlohmann::ordered_json json = nlohmann::ordered_json::parse(kSpec);
  CHECK(ApplySpecOverrides({"num_rounds"}, &json).message() ==
        "--set \"num_rounds\": expected KEY=VALUE, e.g. engine_overrides.num_gpu_blocks=64");
  CHECK(ApplySpecOverrides({"num_rounds.x=1"}, &json).message() ==
        "--set \"num_rounds.x=1\": num_rounds is not an object");
  CHECK(ApplySpecOverrides({"a..b=1"}, &json).message() ==
        "--set \"a..b=1\": the key a..b has an empty part");
}

}  // namespace
}  // namespace kvbench::spec
