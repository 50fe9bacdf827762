#include "controller/spec/job_spec_validator.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/json/proto_json.h"
#include "controller/spec/job_spec_defaults.h"
#include "controller/spec/job_spec_loader.h"

namespace kvbench::spec {
namespace {

// The spec of the issue's example, valid as written.
constexpr char kValidSpec[] = R"({
  "name": "llama8b-offload", "model": "meta-llama/Llama-3.1-8B-Instruct", "build": "NVIDIA",
  "engine": "sim", "tiers": ["GPU", "CPU_RAM", "NVME"], "replicas": 2, "tensor_parallel_size": 1,
  "dataset": {"code": "tau2-bench-v1"}, "num_rounds": 5, "concurrency": [2, 8],
  "isl": 0, "osl": 64, "cpu_pool_gb": 8, "nvme_pool_gb": 64,
  "sampling": {"period_s": 15, "rate_window_s": 300}, "labels": {"team": "serving"}})";

v1::JobSpec ValidSpec() {
  v1::JobSpec spec;
  FieldErrors errors = ParseJsonToProto(kValidSpec, &spec);
  REQUIRE(errors.empty());
  return spec;
}

std::string Describe(const FieldErrors& errors) {
  std::vector<std::string> lines;
  for (const FieldError& error : errors.errors())
    lines.push_back(error.field + ": " + error.message);
  return absl::StrJoin(lines, "\n");
}

struct Case {
  const char* what;
  void (*mutate)(v1::JobSpec*);
  const char* field;    // the one field the error must name
  const char* message;  // a piece of its message
};

TEST_CASE("The example spec is valid") { CHECK(ValidateJobSpec(ValidSpec()).empty()); }

TEST_CASE("Each invalid field is rejected with its name and the allowed range") {
  const std::vector<Case> cases = {
      {"no name", [](v1::JobSpec* s) { s->clear_name(); }, "name", "is required"},
      {"name with a space", [](v1::JobSpec* s) { s->set_name("my job"); }, "name",
       "letters, digits"},
      {"no model", [](v1::JobSpec* s) { s->clear_model(); }, "model", "is required"},
      // The model reaches the engine's argv as a positional value.
      {"model as a flag", [](v1::JobSpec* s) { s->set_model("--help"); }, "model",
       "may not start with '-'"},
      {"model part as a flag", [](v1::JobSpec* s) { s->set_model("org/--trust-remote-code"); },
       "model", "neither a model id"},
      {"model path escaping", [](v1::JobSpec* s) { s->set_model("../../../../bin/sh"); }, "model",
       "neither a model id"},
      {"model path with ..", [](v1::JobSpec* s) { s->set_model("/models/../bin/sh"); }, "model",
       "no '.' or '..' parts"},
      {"model with a newline", [](v1::JobSpec* s) { s->set_model("org/m\n--x"); }, "model",
       "\"org/m\\n--x\""},
      {"no build", [](v1::JobSpec* s) { s->clear_build(); }, "build", "NVIDIA or AMD"},
      {"no engine", [](v1::JobSpec* s) { s->clear_engine(); }, "engine", "vllm or sim"},
      {"empty tiers", [](v1::JobSpec* s) { s->clear_tiers(); }, "tiers", "at least one"},
      {"duplicate tier", [](v1::JobSpec* s) { s->add_tiers(v1::GPU); }, "tiers[3]",
       "GPU is listed twice (also tiers[0])"},
      {"zero replicas", [](v1::JobSpec* s) { s->set_replicas(0); }, "replicas",
       "0 is out of range: must be between 1 and 64"},
      {"zero repeats", [](v1::JobSpec* s) { s->set_repeats(0); }, "repeats",
       "0 is out of range: must be between 1 and 20"},
      {"too many repeats", [](v1::JobSpec* s) { s->set_repeats(21); }, "repeats",
       "21 is out of range: must be between 1 and 20"},
      {"a zero progress timeout", [](v1::JobSpec* s) { s->set_progress_timeout_s(0); },
       "progress_timeout_s", "0 is out of range: must be greater than 0 and at most 86400 s"},
      {"a max duration past a week", [](v1::JobSpec* s) { s->set_max_duration_s(700000); },
       "max_duration_s", "700000 is out of range: must be greater than 0 and at most 604800 s"},
      {"an offload_routing number no enum value has",
       [](v1::JobSpec* s) { s->set_offload_routing(static_cast<v1::OffloadRouting>(7)); },
       "offload_routing", "7 is not one of LEAST_CONN, STICKY"},
      {"negative TP", [](v1::JobSpec* s) { s->set_tensor_parallel_size(-2); },
       "tensor_parallel_size", "between 1 and 64"},
      {"no dataset", [](v1::JobSpec* s) { s->clear_dataset(); }, "dataset.code", "is required"},
      {"unknown dataset", [](v1::JobSpec* s) { s->mutable_dataset()->set_code("imagenet"); },
       "dataset.code", "\"imagenet\" is not one of sammshen, tau2-bench-v1"},
      {"absolute dataset path",
       [](v1::JobSpec* s) { s->mutable_dataset()->set_path("/etc/passwd"); }, "dataset.path",
       "relative to a dataset folder"},
      {"dataset path escaping", [](v1::JobSpec* s) { s->mutable_dataset()->set_path("a/../../b"); },
       "dataset.path", "no '..'"},
      {"zero rounds", [](v1::JobSpec* s) { s->set_num_rounds(0); }, "num_rounds",
       "between 1 and 10000"},
      {"rounds below the generic minimum", [](v1::JobSpec* s) { s->set_num_rounds(3); },
       "num_rounds", "below the minimum chunk length 5 of dataset \"tau2-bench-v1\""},
      {"no concurrency", [](v1::JobSpec* s) { s->clear_concurrency(); }, "concurrency",
       "at least one value"},
      {"zero concurrency", [](v1::JobSpec* s) { s->set_concurrency(1, 0); }, "concurrency[1]",
       "0 is out of range: must be between 1 and 100000"},
      {"negative concurrency", [](v1::JobSpec* s) { s->add_concurrency(-4); }, "concurrency[2]",
       "-4 is out of range"},
      {"duplicate concurrency", [](v1::JobSpec* s) { s->add_concurrency(2); }, "concurrency[2]",
       "2 is a duplicate of concurrency[0]"},
      {"negative isl", [](v1::JobSpec* s) { s->set_isl(-1); }, "isl", "between 0 and"},
      {"negative osl", [](v1::JobSpec* s) { s->set_osl(-1); }, "osl", "between 0 and"},
      {"sessions below concurrency", [](v1::JobSpec* s) { s->set_sessions(4); }, "sessions",
       "below the largest concurrency 8"},
      {"zero cpu pool", [](v1::JobSpec* s) { s->set_cpu_pool_gb(0); }, "cpu_pool_gb",
       "greater than 0"},
      {"negative nvme pool", [](v1::JobSpec* s) { s->set_nvme_pool_gb(-1); }, "nvme_pool_gb",
       "greater than 0"},
      {"zero period", [](v1::JobSpec* s) { s->mutable_sampling()->set_period_s(0); },
       "sampling.period_s", "between 0.1 and 3600 s"},
      // A nanosecond period would spin an agent core at 100% in collecting.
      {"nanosecond period", [](v1::JobSpec* s) { s->mutable_sampling()->set_period_s(1e-9); },
       "sampling.period_s", "between 0.1 and 3600 s"},
      {"window shorter than period",
       [](v1::JobSpec* s) { s->mutable_sampling()->set_rate_window_s(10); },
       "sampling.rate_window_s", "shorter than the sampling period 15 s"},
      {"bad label key", [](v1::JobSpec* s) { (*s->mutable_labels())["Team Name"] = "x"; },
       "labels.Team Name", "lowercase"},
      {"priority too high", [](v1::JobSpec* s) { s->set_priority(5000); }, "priority",
       "between -1000 and 1000"},
      {"time scale on a real engine",
       [](v1::JobSpec* s) {
         s->set_engine(v1::VLLM);
         s->mutable_engine_overrides()->set_sim_time_scale(0.1);
       },
       "engine_overrides.sim_time_scale", "only to the sim engine"},
      {"memory utilization above 1",
       [](v1::JobSpec* s) { s->mutable_engine_overrides()->set_gpu_memory_utilization(1.5); },
       "engine_overrides.gpu_memory_utilization", "at most 1"},
  };
  for (const Case& c : cases) {
    v1::JobSpec spec = ValidSpec();
    c.mutate(&spec);
    FieldErrors errors = ValidateJobSpec(spec);
    INFO(c.what << "\n" << Describe(errors));
    REQUIRE(errors.size() == 1);
    CHECK(errors.errors()[0].field == c.field);
    CHECK(errors.errors()[0].message.find(c.message) != std::string::npos);
  }
}

// The README says kvctl run accepts a path of one's own: the refusal says how to name it.
TEST_CASE("An absolute dataset path is refused saying how to name the same file") {
  const auto problem = [](const std::string& path) {
    v1::JobSpec spec = ValidSpec();
    spec.mutable_dataset()->set_path(path);
    return Describe(ValidateJobSpec(spec));
  };
  CHECK(problem("/data/sets/airline.json") ==
        "dataset.path: \"/data/sets/airline.json\" must be relative to a dataset folder (no "
        "leading '/', no '..'): the agent's dataset_cache_dir or dataset_mirror, "
        "$KV_DATASET_MIRROR, or for kvctl run and plan --dataset-mirror DIR or the folder kvctl "
        "runs in; for this file: \"path\": \"airline.json\" with --dataset-mirror /data/sets");
  CHECK_THAT(
      problem("/traces/miniswe/"),
      Catch::EndsWith("; for this file: \"path\": \"miniswe\" with --dataset-mirror /traces"));
  CHECK_THAT(problem("/airline.json"),
             Catch::EndsWith("\"path\": \"airline.json\" with --dataset-mirror /"));
  // No suggestion where none would name the same file.
  CHECK_THAT(problem("a/../../b"), Catch::EndsWith("or the folder kvctl runs in"));
  CHECK_THAT(problem("/data/../etc/passwd"), Catch::EndsWith("or the folder kvctl runs in"));
}

TEST_CASE("Model ids and absolute checkpoint paths are valid models") {
  for (const char* model :
       {"gpt2", "openai/gpt-oss-20b", "meta-llama/Llama-3.1-8B-Instruct",
        "Qwen/Qwen2.5-7B-Instruct+lora", "/models/llama-8b", "/mnt/ckpt/_run_1/step.100"}) {
    INFO(model);
    CHECK(CheckModelName(model).ok());
  }
}

TEST_CASE("sammshen rows have no minimum chunk length: num_rounds 1 is valid") {
  v1::JobSpec spec = ValidSpec();
  spec.mutable_dataset()->set_code("sammshen");
  spec.set_num_rounds(1);
  CHECK(ValidateJobSpec(spec).empty());
}

TEST_CASE("A spec with three mistakes reports all three, naming each field") {
  absl::StatusOr<v1::JobSpec> spec = ParseJobSpec(R"({
    "name": "three-mistakes", "model": "m", "build": "NVIDIA", "engine": "sim",
    "tiers": ["GPU", "SSD"], "replicas": 0, "dataset": {"code": "tau2-bench-v1"},
    "num_rounds": 5, "concurrency": [4, 4]})",
                                                  "three.json");
  REQUIRE_FALSE(spec.ok());
  CHECK(spec.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(spec.status().message()) ==
        "three.json: 3 problems\n"
        "  tiers[1]: \"SSD\" is not one of GPU, CPU_RAM, NVME (spelled exactly so)\n"
        "  replicas: 0 is out of range: must be between 1 and 64\n"
        "  concurrency[1]: 4 is a duplicate of concurrency[0]; values must be distinct");
}

TEST_CASE("A field that failed to parse is reported once, not again by validation") {
  absl::StatusOr<v1::JobSpec> spec = ParseJobSpec(R"({
    "name": "x", "model": "m", "build": "NVIDIA", "engine": "sim", "tiers": ["GPU"],
    "dataset": {"code": "sammshen"}, "num_rounds": 1, "concurrency": "eight"})",
                                                  "s");
  REQUIRE_FALSE(spec.ok());
  CHECK(std::string(spec.status().message()) ==
        "s: 1 problem\n  concurrency: must be an array, not a string");
}

TEST_CASE("The default rate window spans at least 20 sampling periods, so it stays valid") {
  // Found by the job spec fuzz target: period_s 405 with the 300 s default window
  // made an effective spec that its own validator refused ("shorter than the sampling period").
  v1::JobSpec spec = ValidSpec();
  spec.mutable_sampling()->clear_rate_window_s();
  spec.mutable_sampling()->set_period_s(405);
  REQUIRE(ValidateJobSpec(spec).empty());
  ApplyJobSpecDefaults(&spec);
  CHECK(spec.sampling().rate_window_s() == 8100);
  CHECK(ValidateJobSpec(spec).empty());
  spec.mutable_sampling()->set_period_s(kMaxSamplingPeriodSeconds);
  spec.mutable_sampling()->clear_rate_window_s();
  ApplyJobSpecDefaults(&spec);
  CHECK(ValidateJobSpec(spec).empty());  // 20 x 3600 s is within the window's bound
}

TEST_CASE("Defaults fill unset fields and leave set ones alone") {
  v1::JobSpec spec = ValidSpec();
  spec.clear_replicas();
  spec.clear_sampling();
  spec.set_cpu_pool_gb(32);
  ApplyJobSpecDefaults(&spec);
  // The README's job spec table: replicas "default 1", seed "default seed 1".
  CHECK(spec.replicas() == 1);
  CHECK(spec.tensor_parallel_size() == 1);
  CHECK(spec.sampling().period_s() == 15);
  CHECK(spec.sampling().rate_window_s() == 300);
  CHECK(spec.cpu_pool_gb() == 32);
  CHECK(spec.nvme_pool_gb() == 64);
  CHECK(spec.seed() == 1);
  CHECK(spec.offload_routing() == v1::OFFLOAD_ROUTING_LEAST_CONN);
  CHECK_FALSE(spec.has_sessions());  // per scenario: its concurrency
  // progress_timeout_s "default 300 s, x sim_time_scale on the sim engine, at least 30 s";
  // max_duration_s "default 1 day".
  CHECK(spec.progress_timeout_s() == 300);  // sim engine, no time scale set
  CHECK(spec.max_duration_s() == 86400);
}

TEST_CASE("The progress timeout's default follows the simulator's time scale, at least 30 s") {
  auto timeout_at = [](v1::Engine engine, std::optional<double> scale) {
    v1::JobSpec spec = ValidSpec();
    spec.set_engine(engine);
    if (scale) spec.mutable_engine_overrides()->set_sim_time_scale(*scale);
    ApplyJobSpecDefaults(&spec);
    return spec.progress_timeout_s();
  };
  CHECK(timeout_at(v1::SIM, 0.5) == 150);
  CHECK(timeout_at(v1::SIM, 0.05) == 30);  // 15 s scaled, raised to the floor
  CHECK(timeout_at(v1::SIM, 2.0) == 600);
  CHECK(timeout_at(v1::VLLM, std::nullopt) == 300);
  v1::JobSpec chosen = ValidSpec();
  chosen.set_progress_timeout_s(45);
  ApplyJobSpecDefaults(&chosen);
  CHECK(chosen.progress_timeout_s() == 45);
}

TEST_CASE("offload_routing: LEAST_CONN or STICKY, anything else names the field") {
  std::string text = kValidSpec;
  text.insert(text.rfind('}'), R"(, "offload_routing": "STICKY")");
  absl::StatusOr<v1::JobSpec> sticky = ParseJobSpec(text, "sticky.json");
  REQUIRE(sticky.ok());
  CHECK(sticky->offload_routing() == v1::OFFLOAD_ROUTING_STICKY);
  std::string bad = kValidSpec;
  bad.insert(bad.rfind('}'), R"(, "offload_routing": "ROUND_ROBIN")");
  absl::StatusOr<v1::JobSpec> refused = ParseJobSpec(bad, "bad.json");
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().message()) ==
        "bad.json: 1 problem\n  offload_routing: \"ROUND_ROBIN\" is not one of LEAST_CONN, STICKY "
        "(spelled exactly so)");
}

TEST_CASE("NormalizeJobSpec validates a proto-submitted spec whole") {
  v1::JobSpec spec = ValidSpec();
  spec.set_replicas(0);
  spec.clear_concurrency();
  absl::StatusOr<v1::JobSpec> normalized = NormalizeJobSpec(spec, "SubmitJob");
  REQUIRE_FALSE(normalized.ok());
  CHECK(std::string(normalized.status().message()).find("SubmitJob: 2 problems") == 0);
  CHECK(NormalizeJobSpec(ValidSpec(), "SubmitJob").ok());
}

}  // namespace
}  // namespace kvbench::spec

namespace kvbench::spec {
namespace {

constexpr char kSearchSpec[] = R"({
  "name": "capacity", "model": "meta-llama/Llama-3.1-8B-Instruct", "build": "NVIDIA",
  "engine": "sim", "tiers": ["GPU", "CPU_RAM"], "dataset": {"code": "tau2-bench-v1"},
  "num_rounds": 5, "concurrency": {"search": {"min": 1, "max": 64}},
  "slo": {"ttft_p95_s": 2, "tpot_mean_s": 0.05}, "repeats": 2})";

TEST_CASE("A concurrency search is written where the list goes, with its SLO") {
  absl::StatusOr<v1::JobSpec> spec = ParseJobSpec(kSearchSpec, "capacity.json");
  INFO(spec.status().ToString());
  REQUIRE(spec.ok());
  CHECK(spec->concurrency().empty());
  CHECK(spec->concurrency_search().min() == 1);
  CHECK(spec->concurrency_search().max() == 64);
  CHECK(spec->slo().ttft_p95_s() == 2);
  CHECK(spec->slo().tpot_mean_s() == 0.05);
  CHECK_FALSE(spec->slo().has_ttft_p99_s());
}

// The error of `text` with `from` replaced by `to`.
std::string ErrorOf(const std::string& from, const std::string& to) {
  std::string text = kSearchSpec;
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  absl::StatusOr<v1::JobSpec> spec = ParseJobSpec(text, "capacity.json");
  REQUIRE_FALSE(spec.ok());
  return std::string(spec.status().message());
}

TEST_CASE("A bad search or SLO names its field") {
  CHECK_THAT(ErrorOf("\"min\": 1", "\"min\": 0"),
             Catch::Contains("concurrency.search.min: 0 is out of range: must be between 1"));
  CHECK_THAT(ErrorOf("\"max\": 64", "\"max\": 0"),
             Catch::Contains("concurrency.search.max: 0 is below min 1"));
  CHECK_THAT(ErrorOf("\"slo\": {\"ttft_p95_s\": 2, \"tpot_mean_s\": 0.05}", "\"slo\": {}"),
             Catch::Contains("slo: must set at least one of ttft_p95_s, ttft_p99_s, tpot_mean_s"));
  CHECK_THAT(ErrorOf("\"ttft_p95_s\": 2", "\"ttft_p95_s\": -1"),
             Catch::Contains("slo.ttft_p95_s: -1 is out of range"));
  CHECK_THAT(ErrorOf("\"slo\": {\"ttft_p95_s\": 2, \"tpot_mean_s\": 0.05}, ", ""),
             Catch::Contains("slo: is required by concurrency.search"));
  CHECK_THAT(ErrorOf("{\"search\": {\"min\": 1, \"max\": 64}}", "{\"serch\": {}}"),
             Catch::Contains("concurrency.serch: unknown field"));
  CHECK_THAT(ErrorOf("{\"search\": {\"min\": 1, \"max\": 64}}", "[2, 4]"),
             Catch::Contains("slo: is what a capacity search is measured at"));
  CHECK_THAT(ErrorOf("\"repeats\": 2", "\"repeats\": 2, \"sessions\": 8"),
             Catch::Contains("sessions: 8 is below concurrency.search.max 64"));
  CHECK_THAT(
      ErrorOf("\"repeats\": 2", "\"repeats\": 2, \"concurrency_search\": {\"min\": 1, \"max\": 2}"),
      Catch::Contains("concurrency_search: given twice"));
  CHECK_THAT(
      ErrorOf("\"repeats\": 2", "\"repeats\": 2, \"placement\": {\"fan_out\": \"FAN_OUT_EACH\"}"),
      Catch::Contains("placement.fan_out: FAN_OUT_EACH cannot run a concurrency search"));
}

}  // namespace
}  // namespace kvbench::spec
