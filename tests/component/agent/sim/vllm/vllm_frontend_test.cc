// Pure parts of kvsim-vllm's front: flags, request validation, response shapes.

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/sim/engine/tokenizer.h"
#include "agent/sim/vllm/openai_request.h"
#include "agent/sim/vllm/response_formatter.h"
#include "agent/sim/vllm/usage_stats.h"
#include "agent/sim/vllm/vllm_flags.h"

namespace kvbench::sim {
namespace {

absl::StatusOr<VllmFlagsResult> Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "kvsim-vllm");
  return ParseVllmServeFlags(static_cast<int>(args.size()), args.data());
}

TEST_CASE("kvsim-vllm flags take vLLM's names and defaults") {
  auto parsed = Parse({"serve", "meta-llama/Llama-3.1-8B-Instruct"});
  REQUIRE(parsed.ok());
  const VllmServeOptions& o = parsed->options;
  CHECK(o.port == 8000);
  CHECK(o.block_size == 16);
  CHECK(o.enable_prefix_caching);
  CHECK(o.gpu_memory_utilization == Approx(0.92));
  CHECK(o.primary_name() == "meta-llama/Llama-3.1-8B-Instruct");

  parsed = Parse({"serve", "m", "--host", "127.0.0.1", "--port", "0", "--served-model-name",
                  "llama", "alias", "--no-enable-prefix-caching", "--num-gpu-blocks-override",
                  "512", "--kv-transfer-config", "{\"kv_connector\":\"LMCacheMPConnector\"}",
                  "--enable-prompt-tokens-details", "-tp", "2", "--sim-time-scale", "0.01"});
  REQUIRE(parsed.ok());
  CHECK(parsed->options.served_model_names == std::vector<std::string>{"llama", "alias"});
  CHECK(parsed->options.primary_name() == "llama");
  CHECK_FALSE(parsed->options.enable_prefix_caching);
  CHECK(parsed->options.num_gpu_blocks_override == 512);
  CHECK(parsed->options.enable_prompt_tokens_details);
  CHECK(parsed->options.tensor_parallel_size == 2);
  CHECK(parsed->options.sim_time_scale == Approx(0.01));
  CHECK(MakeEngineConfig(parsed->options).num_gpu_blocks == 512);
}

TEST_CASE("kvsim-vllm rejects an unknown flag by name, like vLLM") {
  auto parsed = Parse({"serve", "m", "--enable-magic", "--port", "1"});
  REQUIRE_FALSE(parsed.ok());
  CHECK(std::string(parsed.status().message()).find("unrecognized arguments: --enable-magic") !=
        std::string::npos);
  CHECK_FALSE(Parse({"serve"}).ok());                            // MODEL is required
  CHECK_FALSE(Parse({"serve", "m", "--block-size", "0"}).ok());  // ranges
  CHECK_FALSE(Parse({"serve", "m", "--sim-time-scale", "-1"}).ok());
}

TEST_CASE("The hybrid KV cache manager follows vLLM's rules and only sliding models feel it") {
  struct Row {
    const char* model;
    std::vector<const char*> flags;
    bool hybrid;
  };
  const char* connector = "{\"kv_connector\":\"LMCacheMPConnector\"}";
  const Row rows[] = {
      {"openai/gpt-oss-20b", {}, true},  // unset, no connector: on
      {"openai/gpt-oss-20b", {"--disable-hybrid-kv-cache-manager"}, false},
      {"openai/gpt-oss-20b", {"--kv-transfer-config", connector}, false},  // no SupportsHMA
      {"openai/gpt-oss-20b", {"--no-disable-hybrid-kv-cache-manager"}, true},
      {"meta-llama/Llama-3.1-8B-Instruct", {}, false},  // no sliding layers: nothing to manage
  };
  for (const Row& row : rows) {
    std::vector<const char*> args = {"serve", row.model};
    args.insert(args.end(), row.flags.begin(), row.flags.end());
    INFO(row.model << " " << (row.flags.empty() ? "" : row.flags.front()));
    auto parsed = Parse(args);
    REQUIRE(parsed.ok());
    CHECK(MakeEngineConfig(parsed->options).hybrid_kv_cache_manager == row.hybrid);
  }
  // gpt-oss-20b: 12 full + 12 sliding layers, so a hybrid block spans 12 layers: twice the blocks
  // from the same memory; an override is taken as given either way.
  auto on = Parse({"serve", "openai/gpt-oss-20b"});
  auto off = Parse({"serve", "openai/gpt-oss-20b", "--disable-hybrid-kv-cache-manager"});
  REQUIRE((on.ok() && off.ok()));
  const int64_t blocks_off = MakeEngineConfig(off->options).num_gpu_blocks;
  CHECK(blocks_off > 0);
  CHECK(MakeEngineConfig(on->options).num_gpu_blocks == Approx(2 * blocks_off).margin(1));
  auto fixed = Parse({"serve", "openai/gpt-oss-20b", "--num-gpu-blocks-override", "1000"});
  REQUIRE(fixed.ok());
  CHECK(MakeEngineConfig(fixed->options).num_gpu_blocks == 1000);

  auto both = Parse(
      {"serve", "m", "--disable-hybrid-kv-cache-manager", "--no-disable-hybrid-kv-cache-manager"});
  CHECK_FALSE(both.ok());
  auto forced = Parse(
      {"serve", "m", "--no-disable-hybrid-kv-cache-manager", "--kv-transfer-config", connector});
  REQUIRE_FALSE(forced.ok());
  CHECK_THAT(std::string(forced.status().message()),
             Catch::Contains("Hybrid KV cache manager was explicitly enabled but is not "
                             "supported in this configuration"));
}

TEST_CASE(
    "kvsim-vllm --enable-auto-tool-choice needs --tool-call-parser, as vLLM checks at start") {
  auto alone = Parse({"serve", "m", "--enable-auto-tool-choice"});
  REQUIRE_FALSE(alone.ok());
  CHECK(std::string(alone.status().message()) ==
        "--enable-auto-tool-choice requires --tool-call-parser");
  auto both = Parse({"serve", "m", "--enable-auto-tool-choice", "--tool-call-parser", "hermes"});
  REQUIRE(both.ok());
  CHECK(both->options.enable_auto_tool_choice);
  CHECK(both->options.tool_call_parser == "hermes");
}

TEST_CASE("ROCm's visible-device check: both set and different is fatal") {
  CHECK(CheckRocmVisibleDevices("0,1", nullptr).ok());
  CHECK(CheckRocmVisibleDevices(nullptr, "0,1").ok());
  CHECK(CheckRocmVisibleDevices("0,1", "0,1").ok());
  CHECK(CheckRocmVisibleDevices("0,1", "").ok());  // empty reads as unset
  const absl::Status conflict = CheckRocmVisibleDevices("2,3", "0");
  REQUIRE_FALSE(conflict.ok());
  CHECK(std::string(conflict.message()) ==
        "Inconsistent GPU visibility env vars: HIP_VISIBLE_DEVICES='2,3' vs "
        "CUDA_VISIBLE_DEVICES='0'. Please set only one, or ensure they match.");
  CHECK_FALSE(Parse({"serve", "m", "--sim-platform", "tpu"}).ok());
}

ApiContext Context() {
  ApiContext context;
  context.served_names = {"llama", "alias"};
  context.max_model_len = 4096;
  return context;
}

std::optional<ApiError> ParseBody(ApiKind kind, const std::string& body, ParsedRequest* out) {
  return ParseApiRequest(kind, body, Context(), out);
}

TEST_CASE("Requests are validated with vLLM's statuses and error types") {
  ParsedRequest r;
  struct Case {
    std::string body;
    int status;
    std::string type;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {"{not json", 400, "Bad Request", "JSON decode error"},
      {R"({"model":"llama"})", 400, "Bad Request", "messages: Field required"},
      {R"({"model":"llama","messages":"hi"})", 400, "Bad Request", "messages"},
      {R"({"model":"gpt-5","messages":[{"role":"user","content":"hi"}]})", 404, "NotFoundError",
       "The model `gpt-5` does not exist."},
      {R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":0})", 400, "BadRequestError",
       "max_tokens must be at least 1"},
      {R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":"ten"})", 400, "Bad Request",
       "max_tokens"},
      {R"({"messages":[{"content":"no role"}]})", 400, "Bad Request", "role"},
  };
  for (const Case& c : cases) {
    INFO(c.body);
    auto error = ParseBody(ApiKind::kChat, c.body, &r);
    REQUIRE(error.has_value());
    CHECK(error->status == c.status);
    CHECK(error->type == c.type);
    CHECK(error->message.find(c.message_part) != std::string::npos);
    auto json = nlohmann::json::parse(error->ToJson());
    CHECK(json["error"]["code"] == c.status);
    CHECK(json["error"]["param"].is_null());
  }
}

TEST_CASE("tool_choice other than none needs harmony or the server's tool parser") {
  const std::string body =
      R"({"model":"llama","messages":[{"role":"user","content":"hi"}],)"
      R"("tools":[{"type":"function","function":{"name":"f","parameters":{}}}],"tool_choice":)";
  ParsedRequest r;
  auto error = ParseBody(ApiKind::kChat, body + R"("auto"})", &r);
  REQUIRE(error.has_value());
  CHECK(error->status == 400);
  CHECK(error->type == "BadRequestError");
  CHECK(error->message ==
        "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be "
        "set");
  error = ParseBody(ApiKind::kChat, body + R"("required"})", &r);
  REQUIRE(error.has_value());
  CHECK(error->message == "tool_choice=\"required\" requires --tool-call-parser to be set");
  CHECK_FALSE(ParseBody(ApiKind::kChat, body + R"("none"})", &r).has_value());
  ApiContext context = Context();
  context.auto_tool_choice = true;
  CHECK_FALSE(ParseApiRequest(ApiKind::kChat, body + R"("auto"})", context, &r).has_value());
  context.auto_tool_choice = false;
  context.harmony = true;
  CHECK_FALSE(ParseApiRequest(ApiKind::kChat, body + R"("auto"})", context, &r).has_value());
}

TEST_CASE("A prompt as long as the context is refused with vLLM's message") {
  std::string words;
  for (int i = 0; i < 5000; ++i) words += "token ";
  ParsedRequest r;
  auto error = ParseBody(ApiKind::kCompletion,
                         nlohmann::json{{"model", "alias"}, {"prompt", words}}.dump(), &r);
  REQUIRE(error.has_value());
  CHECK(error->status == 400);
  CHECK(error->message.find("This model's maximum context length is 4096 tokens. However, your "
                            "request has ") == 0);
}

TEST_CASE("max_tokens is clamped to the context left, stream_options follow vLLM's defaults") {
  ParsedRequest r;
  REQUIRE_FALSE(ParseBody(ApiKind::kCompletion,
                          R"({"prompt":"hello world","max_tokens":100000,"ignore_eos":true,)"
                          R"("stream":true,"stream_options":{}})",
                          &r));
  CHECK(r.model == "llama");  // default: the first served name
  CHECK(r.max_tokens == 4096 - static_cast<int>(r.prompt.size()));
  CHECK(r.ignore_eos);
  CHECK(r.include_usage);  // an empty stream_options object includes usage
  ParsedRequest plain;
  REQUIRE_FALSE(ParseBody(
      ApiKind::kChat, R"({"messages":[{"role":"user","content":"hi"}],"stream":true})", &plain));
  CHECK_FALSE(plain.include_usage);  // no stream_options: no usage chunk
  CHECK(plain.prompt.size() > 2);
}

TEST_CASE("Stream chunks have vLLM's exact shape and field order") {
  ResponseFormatter chat(ApiKind::kChat, "chatcmpl-1", 1767225600, "llama", false);
  Usage usage{120, 3, 96};
  CHECK(chat.FirstEvents(" Hello", usage) ==
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1767225600,"
        "\"model\":\"llama\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
        "\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1767225600,"
        "\"model\":\"llama\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" Hello\"},"
        "\"logprobs\":null,\"finish_reason\":null}]}\n\n");
  CHECK(chat.FinishEvent(" world", FinishReason::kLength, usage) ==
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1767225600,"
        "\"model\":\"llama\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"},"
        "\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}]}\n\n");
  CHECK(chat.UsageEvent(usage) ==
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1767225600,"
        "\"model\":\"llama\",\"choices\":[],\"usage\":{\"prompt_tokens\":120,\"total_tokens\":123,"
        "\"completion_tokens\":3,\"prompt_tokens_details\":{\"cached_tokens\":96}}}\n\n");
  CHECK(ResponseFormatter::DoneEvent() == "data: [DONE]\n\n");

  ResponseFormatter completion(ApiKind::kCompletion, "cmpl-2", 5, "llama", false);
  CHECK(completion.FirstEvents("x", Usage{1, 1, std::nullopt}) ==
        "data: {\"id\":\"cmpl-2\",\"object\":\"text_completion\",\"created\":5,\"model\":\"llama\","
        "\"choices\":[{\"index\":0,\"text\":\"x\",\"logprobs\":null,\"finish_reason\":null,"
        "\"stop_reason\":null}]}\n\n");
  auto full = nlohmann::json::parse(chat.FullResponse("hi", FinishReason::kStop, usage));
  CHECK(full["object"] == "chat.completion");
  CHECK(full["choices"][0]["message"]["content"] == "hi");
  CHECK(full["usage"]["total_tokens"] == 123);
}

TEST_CASE("Usage stats are on unless the environment turns them off, as vLLM's envs.py reads it") {
  std::map<std::string, std::string> env = {{"HOME", "/h"}};
  auto getenv = [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  UsageStats stats = UsageStatsOf(getenv);
  CHECK(stats.enabled);
  CHECK(stats.json_path == "/h/.config/vllm/usage_stats.json");
  env["XDG_CONFIG_HOME"] = "/xdg";
  CHECK(UsageStatsOf(getenv).json_path == "/xdg/vllm/usage_stats.json");
  env["VLLM_CONFIG_ROOT"] = "/root-of-vllm";
  CHECK(UsageStatsOf(getenv).json_path == "/root-of-vllm/usage_stats.json");
  env["DO_NOT_TRACK"] = "1";
  CHECK_FALSE(UsageStatsOf(getenv).enabled);
  // VLLM_DO_NOT_TRACK, when set, is read instead of DO_NOT_TRACK.
  env["VLLM_DO_NOT_TRACK"] = "0";
  CHECK(UsageStatsOf(getenv).enabled);
  env["VLLM_NO_USAGE_STATS"] = "1";
  CHECK_FALSE(UsageStatsOf(getenv).enabled);
  env["VLLM_NO_USAGE_STATS"] = "true";  // only "1" turns it off
  CHECK(UsageStatsOf(getenv).enabled);
}

}  // namespace
}  // namespace kvbench::sim
