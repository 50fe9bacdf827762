// kvsim-vllm replicas with kvsim-lmcache, as real processes on loopback: offload restoring the
// hits a small GPU pool loses, a disk tier that really writes and reads files, two replicas
// sharing one cache server, queued requests looked up once (as upstream's connector does), and a
// cache server that is not there.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/http/curl_http_client.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/sim_process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

using Json = nlohmann::json;

constexpr char kOffloadModel[] = "meta-llama/Llama-3.1-8B-Instruct";

std::unique_ptr<HttpClient> OffloadClient() {
  auto client = CurlHttpClient::Create();
  REQUIRE(client.ok());
  return std::move(*client);
}

// One kvsim-lmcache server; `l1_gb` is its L1 pool, `l2_dir` (optional) an fs L2 tier.
struct CacheServer {
  CacheServer(double l1_gb, const std::string& l2_dir = "")
      : process("kvsim-lmcache", Argv(l1_gb, l2_dir), "LMCache cache server is running... zmq=") {
    INFO(process.error());
    REQUIRE(process.Start());
    http_url = process.LogField("http=");
  }
  static std::vector<std::string> Argv(double l1_gb, const std::string& l2_dir) {
    std::vector<std::string> argv = {KV_SIM_LMCACHE_PATH,
                                     "server",
                                     "--host",
                                     "127.0.0.1",
                                     "--port",
                                     "0",
                                     "--http-port",
                                     "0",
                                     "--l1-size-gb",
                                     absl::StrCat(l1_gb),
                                     "--eviction-policy",
                                     "LRU",
                                     "--sim-time-scale",
                                     "0.01"};
    if (!l2_dir.empty()) {
      argv.push_back("--l2-adapter");
      argv.push_back(Json{{"type", "fs"}, {"base_path", l2_dir}}.dump());
    }
    return argv;
  }
  std::string Metrics(HttpClient& client) {
    auto response = client.Get(http_url + "/metrics");
    REQUIRE(response.ok());
    return response->body;
  }
  SimProcess process;
  std::string http_url;
};

// One kvsim-vllm replica with `gpu_blocks` KV blocks, wired to `cache` when given.
struct Replica {
  Replica(int gpu_blocks, const CacheServer* cache)
      : process("kvsim-vllm", Argv(gpu_blocks, cache), "Starting vLLM API server on "),
        client(OffloadClient()) {
    INFO(process.error());
    REQUIRE(process.Start());
  }
  static std::vector<std::string> Argv(int gpu_blocks, const CacheServer* cache) {
    std::vector<std::string> argv = {KV_SIM_VLLM_PATH,
                                     "serve",
                                     kOffloadModel,
                                     "--host",
                                     "127.0.0.1",
                                     "--port",
                                     "0",
                                     "--served-model-name",
                                     "llama",
                                     "--num-gpu-blocks-override",
                                     std::to_string(gpu_blocks),
                                     "--sim-time-scale",
                                     "0.01",
                                     "--sim-load-seconds",
                                     "0"};
    if (cache != nullptr) {
      argv.push_back("--kv-transfer-config");
      argv.push_back(Json{{"kv_connector", "LMCacheMPConnector"},
                          {"kv_role", "kv_both"},
                          {"kv_connector_extra_config",
                           {{"lmcache.mp.host", "tcp://127.0.0.1"},
                            {"lmcache.mp.port", cache->process.port()},
                            {"lmcache.mp.mq_timeout", 5.0}}}}
                         .dump());
    }
    return argv;
  }
  void Chat(const Json& messages) {
    auto response = client->PostJson(
        process.url() + "/v1/chat/completions",
        Json{{"messages", messages}, {"max_tokens", 8}, {"ignore_eos", true}}.dump());
    REQUIRE(response.ok());
    INFO(response->body);
    REQUIRE(response->status == 200);
  }
  std::string Metrics() {
    auto response = client->Get(process.url() + "/metrics");
    REQUIRE(response.ok());
    return response->body;
  }
  SimProcess process;
  std::unique_ptr<HttpClient> client;
};

// `users` conversations of `rounds` rounds, each round adding a long user turn (~500 tokens) and
// a reply: the working set of all of them outgrows a small GPU pool.
std::vector<std::vector<Json>> Conversations(int users, int rounds) {
  std::vector<std::vector<Json>> result(users);
  for (int u = 0; u < users; ++u) {
    Json messages =
        Json::array({{{"role", "system"},
                      {"content", "Agent " + std::to_string(u) + " follows the airline policy."}}});
    for (int r = 0; r < rounds; ++r) {
      std::string turn = "User " + std::to_string(u) + " round " + std::to_string(r) + ":";
      for (int w = 0; w < 200; ++w) turn += " itinerary" + std::to_string((u * 7 + r * 3 + w) % 97);
      messages.push_back({{"role", "user"}, {"content", turn}});
      result[u].push_back(messages);
      messages.push_back(
          {{"role", "assistant"}, {"content", "Noted, checking round " + std::to_string(r) + "."}});
    }
  }
  return result;
}

// Replays the conversations round-robin (round 1 of every user, then round 2...), one request at
// a time so the run is deterministic, and returns the replica's /metrics afterwards.
std::string Replay(Replica& replica, const std::vector<std::vector<Json>>& conversations) {
  for (size_t round = 0; round < conversations.front().size(); ++round) {
    for (const auto& user : conversations) replica.Chat(user[round]);
  }
  return replica.Metrics();
}

TEST_CASE("Offload: a small GPU pool loses hits, kvsim-lmcache brings most of them back") {
  const auto conversations = Conversations(/*users=*/4, /*rounds=*/3);
  Replica big(/*gpu_blocks=*/20000, nullptr);
  std::string big_metrics = Replay(big, conversations);
  Replica small(/*gpu_blocks=*/160, nullptr);  // 2,560 tokens: about one conversation
  std::string small_metrics = Replay(small, conversations);
  CacheServer cache(/*l1_gb=*/8);
  Replica offload(/*gpu_blocks=*/160, &cache);
  std::string offload_metrics = Replay(offload, conversations);

  const double big_hits = SumOfSamples(big_metrics, "vllm:prefix_cache_hits_total");
  const double small_hits = SumOfSamples(small_metrics, "vllm:prefix_cache_hits_total");
  const double external_hits =
      SumOfSamples(offload_metrics, "vllm:external_prefix_cache_hits_total");
  INFO("hits: big " << big_hits << ", small " << small_hits << ", small+offload local "
                    << SumOfSamples(offload_metrics, "vllm:prefix_cache_hits_total") << " external "
                    << external_hits);
  CHECK(small_hits < big_hits / 2);                      // the small pool forgets
  CHECK(external_hits > 0.7 * (big_hits - small_hits));  // the CPU pool remembers
  CHECK(SumOfSamples(big_metrics, "vllm:external_prefix_cache_hits_total") == 0);
  // The engine's own prefill time (simulated): offload lands between the two.
  const char* prefill = "vllm:request_prefill_time_seconds_sum";
  CHECK(SumOfSamples(big_metrics, prefill) < SumOfSamples(offload_metrics, prefill));
  CHECK(SumOfSamples(offload_metrics, prefill) < SumOfSamples(small_metrics, prefill));
  // The cache server saw the same hits from its side.
  auto client = OffloadClient();
  std::string cache_metrics = cache.Metrics(*client);
  CHECK(SumOfSamples(cache_metrics, "lmcache_mp_lookup_hit_tokens_total") >= external_hits);
}

TEST_CASE("Offload: with a tiny L1 the chunks go to disk files and come back from them") {
  TempDir dir;
  const std::string l2 = dir.File("l2");
  std::filesystem::create_directories(l2);
  CacheServer cache(/*l1_gb=*/0.1, l2);  // ~3 chunks of 32 MiB (256 tokens x 128 KiB)
  Replica replica(/*gpu_blocks=*/160, &cache);
  const auto conversations = Conversations(/*users=*/4, /*rounds=*/2);
  auto client = OffloadClient();
  for (const auto& user : conversations) replica.Chat(user[0]);
  // L2 stores complete asynchronously after the responses. A user's next turn comes seconds
  // later; here it must wait until every chunk written into L1 has reached L2, or a loaded
  // machine replays round 2 before the chunks L1 evicted are on disk (they are then neither in L1
  // nor in L2: a miss, and nothing to load).
  auto stored_everything = [&] {
    const std::string text = cache.Metrics(*client);
    const double written = SumOfSamples(text, "lmcache_mp_l1_write_chunks_total");
    return written > 0 &&
           SumOfSamples(text, "lmcache_mp_l2_store_completed_objects_chunks_total") >= written;
  };
  REQUIRE(WaitFor(stored_everything, absl::Seconds(10)));
  for (const auto& user : conversations) replica.Chat(user[1]);
  std::string metrics = replica.Metrics();

  // Round 2's stores complete asynchronously too: wait for the files, bounded.
  auto files = [&] {
    size_t count = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(l2)) {
      if (entry.is_regular_file() && entry.file_size() > 0) ++count;
    }
    return count;
  };
  CHECK(WaitFor([&] { return files() >= 8; }, absl::Seconds(10)));
  INFO("files: " << files());
  std::string cache_metrics = cache.Metrics(*client);
  CHECK(SumOfSamples(cache_metrics, "lmcache_mp_lookup_hit_l2_tokens_total") > 0);
  CHECK(SumOfSamples(cache_metrics, "lmcache_mp_l2_load_completed_requests_total") > 0);
  CHECK(SumOfSamples(cache_metrics, "lmcache_mp_l1_evicted_chunks_total") > 0);
  CHECK(SumOfSamples(metrics, "vllm:external_prefix_cache_hits_total") > 0);
}

TEST_CASE("Offload: a prefix stored through replica A is an external hit on replica B") {
  CacheServer cache(/*l1_gb=*/4);
  Replica a(/*gpu_blocks=*/4096, &cache);
  Replica b(/*gpu_blocks=*/4096, &cache);
  const Json messages = Conversations(1, 1)[0][0];
  a.Chat(messages);
  b.Chat(messages);
  std::string metrics_a = a.Metrics();
  std::string metrics_b = b.Metrics();
  CHECK(SumOfSamples(metrics_a, "vllm:external_prefix_cache_hits_total") == 0);
  CHECK(SumOfSamples(metrics_b, "vllm:prefix_cache_hits_total") == 0);  // B's GPU never saw it
  const double queried = SumOfSamples(metrics_b, "vllm:external_prefix_cache_queries_total");
  const double hit = SumOfSamples(metrics_b, "vllm:external_prefix_cache_hits_total");
  CHECK(hit > 0);
  CHECK(static_cast<int64_t>(hit) % 256 == 0);  // whole 256-token chunks
  CHECK(hit > queried - 256);                   // every full chunk of the prompt
}

// Upstream's lookup semantics (agent/sim/engine/prefix_lookup.h): vLLM asks the connector again
// on every step a request waits, but LMCache's multiprocess connector sends one LOOKUP per
// request and answers the later calls from it. Requests queued for KV blocks behind a long one
// are therefore looked up once each: LMCache's lookup counters say how many requests asked, not
// how long they waited.
TEST_CASE("Offload: a request queued for KV blocks is looked up in LMCache once, as upstream") {
  CacheServer cache(/*l1_gb=*/8);
  Replica replica(/*gpu_blocks=*/64, &cache);  // 1,024 tokens: one ~700-token request at a time
  constexpr int kRequests = 3;
  std::vector<std::thread> senders;
  std::vector<int> statuses(kRequests, 0);
  for (int i = 0; i < kRequests; ++i) {
    senders.emplace_back([&, i] {
      std::string turn = "Request " + std::to_string(i) + ":";
      for (int w = 0; w < 330; ++w) turn += " leg" + std::to_string((i * 13 + w) % 89);
      const Json body = {{"messages", Json::array({{{"role", "user"}, {"content", turn}}})},
                         {"max_tokens", 64},
                         {"ignore_eos", true}};
      auto response =
          OffloadClient()->PostJson(replica.process.url() + "/v1/chat/completions", body.dump());
      statuses[i] = response.ok() ? response->status : -1;
    });
  }
  for (std::thread& sender : senders) sender.join();
  CHECK(statuses == std::vector<int>(kRequests, 200));
  const std::string metrics = replica.Metrics();
  auto client = OffloadClient();
  const std::string cache_metrics = cache.Metrics(*client);
  const double prompt_tokens = SumOfSamples(metrics, "vllm:prompt_tokens_total");
  const double requested = SumOfSamples(cache_metrics, "lmcache_mp_lookup_requested_tokens_total");
  INFO("prompt tokens " << prompt_tokens << ", LMCache lookup requested " << requested
                        << ", queue time sum "
                        << SumOfSamples(metrics, "vllm:request_queue_time_seconds_sum"));
  REQUIRE(SumOfSamples(metrics, "vllm:num_preemptions_total") == 0);  // no re-admission
  // The later requests did wait for blocks (one fits at a time)...
  CHECK(SumOfSamples(metrics, "vllm:request_queue_time_seconds_sum") > 0);
  // ... and still each was looked up once: one LOOKUP per request, its full chunks only.
  CHECK(SumOfSamples(cache_metrics, "lmcache_mp_lookups_requests_total") == kRequests);
  CHECK(requested <= prompt_tokens);
  CHECK(requested > prompt_tokens - kRequests * 256);
}

TEST_CASE("Offload: kvsim-vllm fails start-up clearly when the cache server is not there") {
  SimProcess sim(
      "kvsim-vllm",
      {KV_SIM_VLLM_PATH, "serve", kOffloadModel, "--port", "0", "--kv-transfer-config",
       R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",)"
       R"("kv_connector_extra_config":{"lmcache.mp.port":1,"lmcache.mp.mq_timeout":0.3}})"},
      "Starting vLLM API server on ");
  CHECK_FALSE(sim.Start(absl::Seconds(15)));
  auto status = sim.process()->Wait(absl::Seconds(15));
  REQUIRE(status.ok());
  CHECK(status->code == 1);
  CHECK(sim.log().find("cannot reach the LMCache server at tcp://localhost:1") !=
        std::string::npos);
}

TEST_CASE("Offload: kv_role other than kv_both is refused with exit code 2") {
  SimProcess sim("kvsim-vllm",
                 {KV_SIM_VLLM_PATH, "serve", kOffloadModel, "--port", "0", "--kv-transfer-config",
                  R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_producer"})"},
                 "Starting vLLM API server on ");
  CHECK_FALSE(sim.Start(absl::Seconds(15)));
  auto status = sim.process()->Wait(absl::Seconds(15));
  REQUIRE(status.ok());
  CHECK(status->code == 2);
  CHECK(sim.log().find("kv_role") != std::string::npos);
}

}  // namespace
}  // namespace kvbench::testing
