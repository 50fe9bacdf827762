// kvsim-vllm as a real process on loopback, driven over HTTP as kv-runner and the sampler will.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/http/curl_http_client.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/sim_process.h"
#include "tests/support/unused_port.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

using Json = nlohmann::json;

constexpr char kModel[] = "meta-llama/Llama-3.1-8B-Instruct";
constexpr char kReady[] = "Starting vLLM API server on ";

std::unique_ptr<HttpClient> Client() {
  auto client = CurlHttpClient::Create();
  REQUIRE(client.ok());
  return std::move(*client);
}

std::vector<std::string> VllmArgv(std::vector<std::string> extra) {
  std::vector<std::string> argv = {KV_SIM_VLLM_PATH,
                                   "serve",
                                   kModel,
                                   "--host",
                                   "127.0.0.1",
                                   "--port",
                                   "0",
                                   "--served-model-name",
                                   "llama",
                                   "--sim-time-scale",
                                   "0.01",
                                   "--sim-load-seconds",
                                   "1"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// The SSE events of a stream body, without the "data: " prefix.
std::vector<std::string> Events(const std::string& body) {
  std::vector<std::string> events;
  for (absl::string_view event : absl::StrSplit(body, "\n\n", absl::SkipEmpty())) {
    REQUIRE(event.substr(0, 6) == "data: ");
    events.emplace_back(event.substr(6));
  }
  return events;
}

struct Vllm {
  explicit Vllm(std::vector<std::string> extra = {})
      : process("kvsim-vllm", VllmArgv(std::move(extra)), kReady), client(Client()) {
    INFO(process.error());
    REQUIRE(process.Start());
  }
  HttpResponse Post(const std::string& path, const Json& body) {
    auto response = client->PostJson(process.url() + path, body.dump());
    REQUIRE(response.ok());
    return *response;
  }
  std::string Metrics() {
    auto response = client->Get(process.url() + "/metrics");
    REQUIRE(response.ok());
    return response->body;
  }
  // The prompt length the server counts for `messages` (POST /tokenize).
  int Tokens(const Json& messages) {
    HttpResponse response = Post("/tokenize", {{"model", "llama"}, {"messages", messages}});
    REQUIRE(response.status == 200);
    return Json::parse(response.body)["count"].get<int>();
  }
  SimProcess process;
  std::unique_ptr<HttpClient> client;
};

Json Conversation(int turns) {
  Json messages = Json::array();
  messages.push_back({{"role", "system"},
                      {"content",
                       "You are a helpful airline agent. "
                       "Follow the policy exactly."}});
  for (int i = 0; i < turns; ++i) {
    messages.push_back(
        {{"role", "user"},
         {"content", "I need to change my flight number " + std::to_string(i) +
                         " to a later one, the reservation code is ABC" + std::to_string(100 + i) +
                         ". Can you check availability?"}});
    messages.push_back({{"role", "assistant"}, {"content", "Let me look that up for you."}});
  }
  return messages;
}

TEST_CASE("kvsim-vllm /health is an empty 200 once the model has loaded") {
  // Port 0: a port picked before the launch could be taken by a neighbour test meanwhile (seen
  // once in five repeats of the suite at -j2 under load); the log names the real one.
  std::vector<std::string> argv = {KV_SIM_VLLM_PATH,
                                   "serve",
                                   kModel,
                                   "--host",
                                   "127.0.0.1",
                                   "--port",
                                   "0",
                                   "--sim-time-scale",
                                   "0.01",
                                   "--sim-load-seconds",
                                   "100"};  // 1 s of real time
  SimProcess sim("kvsim-vllm", argv, kReady);
  auto client = Client();
  REQUIRE(sim.Start());  // returns once the log names the URL: listening from then on
  auto health = client->Get(sim.url() + "/health");
  REQUIRE(health.ok());
  CHECK(health->status == 200);
  CHECK(health->body.empty());
  CHECK(sim.log().find("Starting vLLM API server") != std::string::npos);
}

TEST_CASE("kvsim-vllm: connection refused while the model loads") {
  int port = UnusedLoopbackPort();
  SimProcess sim("kvsim-vllm",
                 {KV_SIM_VLLM_PATH, "serve", kModel, "--host", "127.0.0.1", "--port",
                  std::to_string(port), "--sim-time-scale", "1", "--sim-load-seconds", "30"},
                 "before listening on ");
  // Up once it says it is loading (a binary that crashed or refused a flag never says so).
  REQUIRE(sim.Start());
  CHECK(sim.port() == port);
  auto health = Client()->Get(sim.url() + "/health");  // it keeps loading for 30 s
  REQUIRE_FALSE(health.ok());
  CHECK(health.status().code() == absl::StatusCode::kUnavailable);
  CHECK_FALSE(sim.process()->TryWait().has_value());  // refused because loading, not dead
}

TEST_CASE("kvsim-vllm streams a chat completion with vLLM's event sequence") {
  Vllm vllm({"--enable-prompt-tokens-details"});
  Json messages = Conversation(2);
  int prompt_tokens = vllm.Tokens(messages);
  REQUIRE(prompt_tokens > 50);
  HttpResponse response =
      vllm.Post("/v1/chat/completions", {{"model", "llama"},
                                         {"messages", messages},
                                         {"stream", true},
                                         {"max_tokens", 5},
                                         {"ignore_eos", true},
                                         {"stream_options", {{"include_usage", true}}}});
  REQUIRE(response.status == 200);
  CHECK(response.Header("content-type")->find("text/event-stream") == 0);
  std::vector<std::string> events = Events(response.body);
  REQUIRE(events.size() >= 4);
  CHECK(events.back() == "[DONE]");
  Json role = Json::parse(events[0]);
  CHECK(role["object"] == "chat.completion.chunk");
  CHECK(role["model"] == "llama");
  CHECK(role["choices"][0]["delta"] == Json{{"role", "assistant"}, {"content", ""}});
  CHECK(role["choices"][0]["finish_reason"].is_null());
  CHECK(role["choices"][0].contains("logprobs"));
  std::string id = role["id"];
  CHECK(id.rfind("chatcmpl-", 0) == 0);
  Json finish = Json::parse(events[events.size() - 3]);
  CHECK(finish["choices"][0]["finish_reason"] == "length");
  CHECK(finish["choices"][0]["stop_reason"].is_null());
  Json usage = Json::parse(events[events.size() - 2]);
  CHECK(usage["choices"].empty());
  CHECK(usage["usage"]["prompt_tokens"] == prompt_tokens);
  CHECK(usage["usage"]["completion_tokens"] == 5);
  CHECK(usage["usage"]["total_tokens"] == prompt_tokens + 5);
  CHECK(usage["usage"]["prompt_tokens_details"]["cached_tokens"] == 0);
  std::string text;
  for (size_t i = 0; i + 2 < events.size(); ++i) {
    Json chunk = Json::parse(events[i]);
    CHECK(chunk["id"] == id);
    CHECK(chunk["created"].is_number_integer());
    if (chunk["choices"][0]["delta"].contains("content")) {
      text += chunk["choices"][0]["delta"]["content"].get<std::string>();
    }
  }
  CHECK_FALSE(text.empty());
}

TEST_CASE("kvsim-vllm: the same prompt twice hits the prefix cache by whole blocks") {
  Vllm vllm({"--enable-prompt-tokens-details"});
  Json messages = Conversation(6);
  const int prompt_tokens = vllm.Tokens(messages);
  const int expected_hit = (prompt_tokens - 1) / 16 * 16;  // whole blocks, last token recomputed
  Json request = {{"messages", messages}, {"max_tokens", 4}, {"ignore_eos", true}};
  std::string before = vllm.Metrics();
  Json first = Json::parse(vllm.Post("/v1/chat/completions", request).body);
  std::string middle = vllm.Metrics();
  Json second = Json::parse(vllm.Post("/v1/chat/completions", request).body);
  std::string after = vllm.Metrics();

  CHECK(first["usage"]["prompt_tokens_details"]["cached_tokens"] == 0);
  CHECK(second["usage"]["prompt_tokens_details"]["cached_tokens"] == expected_hit);
  auto delta = [&](const std::string& a, const std::string& b, const char* name) {
    return SumOfSamples(b, name) - SumOfSamples(a, name);
  };
  CHECK(delta(before, middle, "vllm:prefix_cache_queries_total") == prompt_tokens);
  CHECK(delta(before, middle, "vllm:prefix_cache_hits_total") == 0);
  CHECK(delta(middle, after, "vllm:prefix_cache_queries_total") == prompt_tokens);
  CHECK(delta(middle, after, "vllm:prefix_cache_hits_total") == expected_hit);
  // The engine's own prefill time (simulated, so exact) is shorter for the cached prompt.
  double cold = delta(before, middle, "vllm:request_prefill_time_seconds_sum");
  double warm = delta(middle, after, "vllm:request_prefill_time_seconds_sum");
  CHECK(cold > 0);
  CHECK(warm < cold);
  CHECK(SumOfSamples(after, "vllm:request_success_total") == 2);
  CHECK(after.find("vllm:external_prefix_cache_queries_total") == std::string::npos);
}

TEST_CASE("kvsim-vllm answers bad requests in vLLM's error shapes") {
  Vllm vllm({"--max-model-len", "256"});
  struct Case {
    Json body;
    int status;
    std::string type;
  };
  std::string long_text;
  for (int i = 0; i < 400; ++i) long_text += "word ";
  const std::vector<Case> cases = {
      {{{"model", "gpt-5"}, {"messages", Json::array({{{"role", "user"}, {"content", "hi"}}})}},
       404,
       "NotFoundError"},
      {{{"messages", Json::array({{{"role", "user"}, {"content", long_text}}})}},
       400,
       "BadRequestError"},
      {{{"model", "llama"}}, 400, "Bad Request"},
  };
  for (const Case& c : cases) {
    INFO(c.body.dump().substr(0, 200));
    HttpResponse response = vllm.Post("/v1/chat/completions", c.body);
    CHECK(response.status == c.status);
    Json error = Json::parse(response.body)["error"];
    CHECK(error["type"] == c.type);
    CHECK(error["code"] == c.status);
    CHECK(error["message"].is_string());
  }
  auto raw = vllm.client->PostJson(vllm.process.url() + "/v1/completions", "{oops");
  REQUIRE(raw.ok());
  CHECK(raw->status == 400);
  auto missing = vllm.client->Get(vllm.process.url() + "/v2/nothing");
  REQUIRE(missing.ok());
  CHECK(missing->status == 404);
}

TEST_CASE("kvsim-vllm serves /v1/models and non-streaming completions") {
  Vllm vllm({"--max-model-len", "2048"});
  auto models = vllm.client->Get(vllm.process.url() + "/v1/models");
  REQUIRE(models.ok());
  Json list = Json::parse(models->body);
  CHECK(list["object"] == "list");
  CHECK(list["data"][0]["id"] == "llama");
  CHECK(list["data"][0]["root"] == kModel);
  CHECK(list["data"][0]["max_model_len"] == 2048);
  Json completion = Json::parse(
      vllm.Post("/v1/completions",
                {{"prompt", "Once upon a time"}, {"max_tokens", 7}, {"ignore_eos", true}})
          .body);
  CHECK(completion["object"] == "text_completion");
  CHECK(completion["usage"]["completion_tokens"] == 7);
  CHECK(completion["choices"][0]["finish_reason"] == "length");
}

TEST_CASE("kvsim-vllm exits 2 naming an unknown flag") {
  SimProcess sim("kvsim-vllm", {KV_SIM_VLLM_PATH, "serve", kModel, "--frobnicate"}, kReady);
  CHECK_FALSE(sim.Start(absl::Seconds(10)));
  auto status = sim.process()->Wait(absl::Seconds(10));
  REQUIRE(status.ok());
  CHECK(status->code == 2);
  CHECK(sim.log().find("unrecognized arguments: --frobnicate") != std::string::npos);
}

}  // namespace
}  // namespace kvbench::testing
