#include "common/json/proto_json.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "kvbench/v1/agent_link.pb.h"
#include "kvbench/v1/config.pb.h"
#include "kvbench/v1/controller_service.pb.h"
#include "kvbench/v1/job.pb.h"
#include "tests/support/field_errors_helpers.h"
#include "tests/support/temp_dir.h"

namespace kvbench {
namespace {

using google::protobuf::util::MessageDifferencer;

using testing::Fields;

v1::Job SampleJob() {
  v1::Job job;
  job.set_job_id("j-123");
  job.set_state(v1::JOB_STATE_RUNNING);
  job.set_submit_unix_ms(1767225600123);
  v1::JobSpec* spec = job.mutable_spec();
  spec->set_name("llama8b-offload");
  spec->set_model("meta-llama/Llama-3.1-8B-Instruct");
  spec->set_build(v1::NVIDIA);
  spec->set_engine(v1::SIM);
  spec->add_tiers(v1::GPU);
  spec->add_tiers(v1::NVME);
  spec->set_replicas(2);
  spec->mutable_dataset()->set_code("tau2-bench-v1");
  spec->set_num_rounds(5);
  spec->add_concurrency(2);
  spec->add_concurrency(8);
  spec->set_seed(18446744073709551615ull);  // max uint64: written as a string
  (*spec->mutable_labels())["team"] = "serving";
  spec->mutable_sampling()->set_period_s(15);
  v1::ScenarioStatus* scenario = job.add_scenarios();
  scenario->mutable_scenario()->set_scenario_id("00-gpu-c2");
  scenario->set_state(v1::SCENARIO_STATE_SUCCEEDED);
  v1::ScenarioResult* result = scenario->mutable_result();
  result->mutable_latency()->set_ttft_p50_s(0.125);
  result->mutable_latency()->set_ttft_degradation_median_pct(-3.5);
  result->mutable_engine()->set_num_gpu_blocks(9000000000);  // int64 beyond 32 bits
  v1::RoundLatency* round = result->mutable_latency()->add_ttft_by_round();
  round->set_round(1);
  round->set_count(8);
  v1::TimeSeries* series = result->add_series();
  series->set_name("local_hit_rate");
  series->add_t_s(15);
  series->add_value(0.5);
  return job;
}

TEST_CASE("Messages round-trip through JSON exactly, nested, repeated, maps, enums, int64") {
  v1::Job job = SampleJob();
  std::string json = ProtoToJson(job);
  v1::Job back;
  FieldErrors errors = ParseJsonToProto(json, &back);
  INFO(json);
  REQUIRE(errors.empty());
  CHECK(MessageDifferencer::Equals(job, back));
  CHECK(json.find("\"seed\":\"18446744073709551615\"") != std::string::npos);
}

TEST_CASE("Optional fields keep the difference between unset (null) and zero") {
  v1::LatencyMetrics zero;
  zero.set_ttft_mean_s(0.0);
  v1::LatencyMetrics back;
  REQUIRE(ParseJsonToProto(ProtoToJson(zero), &back).empty());
  CHECK(back.has_ttft_mean_s());
  CHECK_FALSE(back.has_ttft_p99_s());
  REQUIRE(ParseJsonToProto(R"({"ttft_mean_s": null})", &back).empty());
  CHECK_FALSE(back.has_ttft_mean_s());
}

TEST_CASE("Stream messages with oneofs round-trip") {
  v1::AgentMessage message;
  v1::Event* event = message.mutable_event();
  event->set_seq(41);
  event->set_scenario_id("01-cpu-ram-c2");
  (*event->mutable_sample()->mutable_values())["vllm:prefix_cache_hits_total"] = 1024;
  v1::AgentMessage back;
  REQUIRE(ParseJsonToProto(ProtoToJson(message), &back).empty());
  CHECK(MessageDifferencer::Equals(message, back));
  CHECK(back.event().payload_case() == v1::Event::kSample);
}

TEST_CASE("Every problem of a document is reported with its path, in document order") {
  v1::JobSpec spec;
  FieldErrors errors = ParseJsonToProto(R"({
      "name": 7,
      "tiers": ["GPU", "FLOPPY", 3],
      "replicas": "two",
      "dataset": {"code": "sammshen", "format": "csv"},
      "concurrency": [1, 2.5, 99999999999],
      "labels": {"team": 1},
      "sampling": [],
      "nonsense": true
    })",
                                        &spec);
  CHECK(Fields(errors) ==
        "name|tiers[1]|tiers[2]|replicas|dataset.format|concurrency[1]|concurrency[2]|"
        "labels.team|sampling|nonsense|");
  // What parsed cleanly is kept: the caller can still validate the rest.
  CHECK(spec.tiers_size() == 1);
  CHECK(spec.dataset().code() == "sammshen");
  CHECK(spec.concurrency_size() == 1);
}

TEST_CASE("Enum values: the printed or documented spelling only, and number 0 is never valid") {
  v1::JobSpec spec;
  REQUIRE(ParseJsonToProto(R"({"engine": "sim", "build": "NVIDIA", "tiers": ["CPU_RAM"]})", &spec)
              .empty());
  CHECK(spec.engine() == v1::SIM);
  CHECK(spec.build() == v1::NVIDIA);
  CHECK(spec.tiers(0) == v1::CPU_RAM);
  REQUIRE(ParseJsonToProto(R"({"engine": "VLLM"})", &spec).empty());  // as kvbench prints it
  CHECK(spec.engine() == v1::VLLM);
  FieldErrors errors = ParseJsonToProto(R"({"engine": "ENGINE_UNSPECIFIED"})", &spec);
  REQUIRE(errors.size() == 1);
  // The message spells the values as the README does (engine: lowercase), and says
  // the capitals kvctl prints are taken too.
  CHECK(errors.errors()[0].message ==
        "\"ENGINE_UNSPECIFIED\" is not one of vllm, sim (spelled exactly so, or as kvctl prints "
        "them: VLLM, SIM)");
  // Lenient spellings are errors, each naming its field.
  errors = ParseJsonToProto(
      R"({"tiers": ["gpu", 1, "Cpu_Ram"], "build": "nvidia", "engine": "Sim"})", &spec);
  CHECK(Fields(errors) == "tiers[0]|tiers[1]|tiers[2]|build|engine|");
  CHECK(errors.errors()[1].message == "1 is not one of GPU, CPU_RAM, NVME");
  CHECK(errors.errors()[3].message == "\"nvidia\" is not one of NVIDIA, AMD (spelled exactly so)");
  CHECK(errors.errors()[4].message ==
        "\"Sim\" is not one of vllm, sim (spelled exactly so, or as kvctl prints them: VLLM, SIM)");
}

TEST_CASE("A prefixed enum's values are written without the prefix, and with it") {
  v1::JobSpec spec;
  REQUIRE(ParseJsonToProto(R"({"offload_routing": "STICKY"})", &spec).empty());
  CHECK(spec.offload_routing() == v1::OFFLOAD_ROUTING_STICKY);
  REQUIRE(ParseJsonToProto(R"({"offload_routing": "OFFLOAD_ROUTING_LEAST_CONN"})", &spec).empty());
  CHECK(spec.offload_routing() == v1::OFFLOAD_ROUTING_LEAST_CONN);
  for (const char* bad :
       {R"({"offload_routing": "round_robin"})", R"({"offload_routing": "UNSPECIFIED"})",
        R"({"offload_routing": "sticky"})"}) {
    FieldErrors errors = ParseJsonToProto(bad, &spec);
    REQUIRE(errors.size() == 1);
    CHECK(errors.errors()[0].field == "offload_routing");
    CHECK_THAT(errors.errors()[0].message,
               Catch::EndsWith(" is not one of LEAST_CONN, STICKY (spelled exactly so)"));
  }
}

TEST_CASE("lowerCamelCase JSON names are accepted like protobuf's own parser") {
  v1::JobSpec spec;
  REQUIRE(ParseJsonToProto(R"({"tensorParallelSize": 4, "numRounds": 3})", &spec).empty());
  CHECK(spec.tensor_parallel_size() == 4);
  CHECK(spec.num_rounds() == 3);
}

TEST_CASE("Signed and unsigned ranges are enforced") {
  v1::JobSpec spec;
  CHECK(Fields(ParseJsonToProto(R"({"seed": -1})", &spec)) == "seed|");
  CHECK(Fields(ParseJsonToProto(R"({"replicas": 2147483648})", &spec)) == "replicas|");
  CHECK(ParseJsonToProto(R"({"replicas": -2147483648})", &spec).empty());
  CHECK(spec.replicas() == -2147483648LL);
  CHECK(ParseJsonToProto(R"({"seed": "18446744073709551615"})", &spec).empty());
  CHECK(spec.seed() == 18446744073709551615ull);
}

TEST_CASE("Numbers beyond a double's range and duplicate keys are errors naming their path") {
  // 1e999 would abort kvctl and both daemons (nlohmann's out_of_range.406), and a key
  // given twice would silently keep the last value.
  v1::JobSpec spec;
  FieldErrors errors = ParseJsonToProto(R"({"name": "x", "sessions": 1e999})", &spec);
  REQUIRE(errors.size() == 1);
  CHECK(errors.errors()[0].field == "sessions");
  CHECK(errors.errors()[0].message == "1e999 is out of range (a number must fit a 64-bit double)");
  errors = ParseJsonToProto(R"({"concurrency": [2, -1e400]})", &spec);
  REQUIRE(errors.size() == 1);
  CHECK(errors.errors()[0].field == "concurrency[1]");
  errors = ParseJsonToProto(
      R"({"name": "a", "dataset": {"code": "x", "code": "y"}, "name": "b", "tiers": ["GPU"]})",
      &spec);
  CHECK(Fields(errors) == "dataset.code|name|");
  CHECK(errors.errors()[0].message == "duplicate key: given more than once in this object");
  // The same key in two objects is no duplicate.
  CHECK(ParseJsonToProto(R"({"dataset": {"code": "x"}, "sampling": {"period_s": 1}})", &spec)
            .empty());
}

TEST_CASE("A JSON syntax error names line and column") {
  v1::JobSpec spec;
  FieldErrors errors = ParseJsonToProto("{\n  \"name\": \"x\",\n  \"model\" \"y\"\n}", &spec);
  REQUIRE(errors.size() == 1);
  CHECK(errors.errors()[0].field.empty());
  CHECK(errors.errors()[0].message.find("line 3") != std::string::npos);
  CHECK(ParseJsonToProto("[1, 2]", &spec).errors()[0].message == "must be an object, not an array");
}

TEST_CASE("FieldErrors become one INVALID_ARGUMENT listing each problem on its own line") {
  FieldErrors errors;
  errors.Add("replicas", "0 is out of range");
  errors.Add("tiers", "must list at least one");
  absl::Status status = errors.ToStatus("spec.json");
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(status.message()) ==
        "spec.json: 2 problems\n  replicas: 0 is out of range\n  tiers: must list at least one");
  CHECK(FieldErrors().ToStatus("x").ok());
}

TEST_CASE("A long error list is cut after the first 20 with a count of the rest") {
  FieldErrors errors;
  for (int i = 0; i < 51819; ++i) errors.Add(absl::StrCat("concurrency[", i, "]"), "bad");
  const std::string message(errors.ToStatus("spec.json").message());
  CHECK_THAT(message, Catch::StartsWith("spec.json: 51819 problems\n  concurrency[0]: bad\n"));
  CHECK_THAT(message, Catch::Contains("concurrency[19]: bad\n  ... and 51799 more"));
  CHECK_THAT(message, !Catch::Contains("concurrency[20]"));
}

TEST_CASE("LoadProtoFromJsonFile names the file it could not read or parse") {
  testing::TempDir dir;
  v1::AgentConfig config;
  absl::Status missing = LoadProtoFromJsonFile(dir.File("absent.json"), &config);
  CHECK(missing.code() == absl::StatusCode::kNotFound);
  CHECK(std::string(missing.message()).find("absent.json") != std::string::npos);
  std::string path = dir.WriteFile("agent.json", R"({"work_dir": "/w", "wrok_dir": "/x"})");
  absl::Status bad = LoadProtoFromJsonFile(path, &config);
  CHECK(bad.code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(bad.message()).find(path + ": 1 problem\n  wrok_dir: unknown field") == 0);
}

}  // namespace
}  // namespace kvbench
