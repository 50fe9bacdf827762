// kvsim-vllm's own lateness metric, kvsim:step_lateness_seconds, on the real binary:
// exposed with the engine's steps, and growing when the engine thread cannot keep up with its
// simulated clock.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/http/curl_http_client.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/sim_process.h"

namespace kvbench::testing {
namespace {

using Json = nlohmann::json;

constexpr char kLateness[] = "kvsim:step_lateness_seconds";

struct Histogram {
  double sum = 0;
  double count = 0;
};

TEST_CASE("kvsim-vllm: step lateness is exposed and grows when the engine falls behind") {
  // One simulated second per real microsecond: no host computes a step (a decode step of ~10 ms
  // simulated) in the 10 ns of real time it is given, so every step goes out later than the last,
  // by at least the real time the engine thread spends on it.
  SimProcess sim("kvsim-vllm",
                 {KV_SIM_VLLM_PATH, "serve", "meta-llama/Llama-3.1-8B-Instruct", "--host",
                  "127.0.0.1", "--port", "0", "--served-model-name", "llama", "--sim-time-scale",
                  "0.000001", "--sim-load-seconds", "0"},
                 "Starting vLLM API server on ");
  INFO(sim.error());
  REQUIRE(sim.Start());
  auto client = CurlHttpClient::Create();
  REQUIRE(client.ok());
  auto histogram = [&] {
    auto response = (*client)->Get(sim.url() + "/metrics");
    REQUIRE(response.ok());
    return Histogram{SumOfSamples(response->body, std::string(kLateness) + "_sum"),
                     SumOfSamples(response->body, std::string(kLateness) + "_count")};
  };
  auto complete = [&](int tokens) {
    const Json body = {{"model", "llama"},
                       {"messages", Json::array({{{"role", "user"}, {"content", "Hello there"}}})},
                       {"max_tokens", tokens},
                       {"ignore_eos", true}};
    auto response = (*client)->PostJson(sim.url() + "/v1/chat/completions", body.dump());
    REQUIRE(response.ok());
    REQUIRE(response->status == 200);
  };
  const Histogram idle = histogram();
  complete(8);
  const Histogram short_request = histogram();
  // Every step is observed once: a prefill step and one per further token at least.
  const double short_steps = short_request.count - idle.count;
  CHECK(short_steps >= 8);
  complete(2048);
  const Histogram long_request = histogram();
  const double long_steps = long_request.count - short_request.count;
  CHECK(long_steps >= 2048);
  // Behind its clock, the engine never sleeps, so each step is later than the one before: the
  // mean lateness of a request's steps grows with their number.
  const double short_mean = (short_request.sum - idle.sum) / short_steps;
  const double long_mean = (long_request.sum - short_request.sum) / long_steps;
  INFO("mean lateness: " << short_mean << " s over " << short_steps << " steps, " << long_mean
                         << " s over " << long_steps);
  CHECK(long_mean > short_mean);
  CHECK(long_mean > 0);
}

}  // namespace
}  // namespace kvbench::testing
