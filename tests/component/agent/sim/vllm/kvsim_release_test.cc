// kvsim-vllm imitating vLLM release behaviours, as a real process: the version probe,
// GET /version, a hybrid SSM model that needs the hybrid KV cache manager, the KV connector
// factory's log line and module-path rule, and the two ways vLLM's schedulers counted external
// prefix-cache queries (with a real kvsim-lmcache).

#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/http/curl_http_client.h"
#include "common/process/posix_process_launcher.h"
#include "tests/support/prometheus_text.h"
#include "tests/support/sim_process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

using Json = nlohmann::json;

constexpr char kReleaseModel[] = "meta-llama/Llama-3.1-8B-Instruct";
constexpr char kBambaModel[] = "ibm-ai-platform/Bamba-9B-v2";
constexpr char kServing[] = "Starting vLLM API server on ";
constexpr char kPromoteValueError[] =
    "ValueError: Failed to promote local KV cache specs to one unified type.";
constexpr char kCreating[] = "Creating v1 connector with name: LMCacheMPConnector and engine_id: ";

std::unique_ptr<HttpClient> ReleaseClient() {
  auto client = CurlHttpClient::Create();
  REQUIRE(client.ok());
  return std::move(*client);
}

// kvsim-vllm with its stdout and stderr in separate files (vLLM logs to stdout).
class SplitProcess {
 public:
  explicit SplitProcess(std::vector<std::string> args) {
    ProcessSpec spec;
    spec.name = "kvsim-vllm";
    spec.argv = {KV_SIM_VLLM_PATH};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = {{"VLLM_NO_USAGE_STATS", "1"}};  // no record under the test runner's home
    spec.stdout_path = dir_.File("stdout");
    spec.stderr_path = dir_.File("stderr");
    auto process = launcher_.Launch(spec);
    REQUIRE(process.ok());
    process_ = std::move(*process);
  }
  ~SplitProcess() { (void)process_->Stop(absl::Seconds(5)); }
  ExitStatus Exit() {
    auto status = process_->Wait(absl::Seconds(30));
    REQUIRE(status.ok());
    return *status;
  }
  // The URL once the server listens (the log names the port), "" if it exits first.
  std::string WaitServing() {
    std::string url;
    WaitFor(
        [&] {
          const std::string err = err_text();
          const size_t at = err.find(kServing);
          const size_t end = at == std::string::npos ? at : err.find('\n', at);
          if (end == std::string::npos) return process_->TryWait().has_value();
          const std::string address = err.substr(at, end - at);  // ... http://host:port
          url = "http://127.0.0.1" + address.substr(address.rfind(':'));
          return true;
        },
        absl::Seconds(20));
    return url;
  }
  std::string out_text() const { return dir_.ReadFile("stdout"); }
  std::string err_text() const { return dir_.ReadFile("stderr"); }

 private:
  TempDir dir_;
  PosixProcessLauncher launcher_;
  std::unique_ptr<Process> process_;
};

size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

// LMCacheMPConnector on kvsim-lmcache at `port` (1: nothing there, given up after 0.3 s), with
// `extra_top_level` keys ("key":value,) before its extra config.
std::string KvTransferConfig(int port, const std::string& extra_top_level = "") {
  return absl::StrCat(R"({"kv_connector":"LMCacheMPConnector","kv_role":"kv_both",)",
                      extra_top_level, R"("kv_connector_extra_config":{)",
                      R"("lmcache.mp.host":"tcp://127.0.0.1","lmcache.mp.port":)", port,
                      R"(,"lmcache.mp.mq_timeout":)", port == 1 ? "0.3" : "5.0", "}}");
}

TEST_CASE("kvsim-vllm --version prints the release on stdout and exits 0, as vllm --version") {
  struct Row {
    std::vector<std::string> args;
    std::string printed;
  };
  const Row rows[] = {
      {{"--version"}, "0.33.0\n"},
      {{"--sim-vllm-version=0.12.0", "--version"}, "0.12.0\n"},
      {{"--sim-load-seconds=0", "--sim-vllm-version", "0.20.1", "-v"}, "0.20.1\n"},
  };
  for (const Row& row : rows) {
    INFO(row.args.front());
    SplitProcess probe(row.args);
    CHECK(probe.Exit().success());
    CHECK(probe.out_text() == row.printed);
    CHECK(probe.err_text().empty());
  }
  SplitProcess broken({"--sim-vllm-version", "--version"});
  CHECK(broken.Exit().code == 2);
  CHECK(broken.out_text().empty());
}

TEST_CASE("kvsim-vllm GET /version answers the release it imitates") {
  for (const std::string release : {"", "0.12.0"}) {
    INFO(release);
    std::vector<std::string> argv = {
        KV_SIM_VLLM_PATH, "serve", kReleaseModel,        "--host", "127.0.0.1",
        "--port",         "0",     "--sim-load-seconds", "0"};
    if (!release.empty()) argv.push_back("--sim-vllm-version=" + release);
    SimProcess sim("kvsim-vllm", argv, kServing);
    const bool started = sim.Start();
    INFO(sim.error());
    REQUIRE(started);
    auto response = ReleaseClient()->Get(sim.url() + "/version");
    REQUIRE(response.ok());
    CHECK(response->status == 200);
    CHECK(Json::parse(response->body) == Json{{"version", release.empty() ? "0.33.0" : release}});
  }
}

TEST_CASE("A hybrid SSM model fails start-up without the hybrid KV cache manager, as vLLM") {
  SECTION("--disable-hybrid-kv-cache-manager") {
    SplitProcess vllm({"serve", kBambaModel, "--port", "0", "--disable-hybrid-kv-cache-manager"});
    CHECK(vllm.Exit().code == 1);
    CHECK(absl::StrContains(vllm.err_text(), kPromoteValueError));
    CHECK_FALSE(absl::StrContains(vllm.err_text(), kServing));
  }
  SECTION("a connector turns the manager off: it fails before connecting") {
    SplitProcess vllm({"serve", kBambaModel, "--port", "0", "--kv-transfer-config",
                       KvTransferConfig(/*port=*/1)});
    CHECK(vllm.Exit().code == 1);
    CHECK(absl::StrContains(vllm.err_text(), kPromoteValueError));
    CHECK_FALSE(absl::StrContains(vllm.out_text(), "Creating v1 connector"));
  }
  SECTION("with the manager it serves") {
    SimProcess sim("kvsim-vllm",
                   {KV_SIM_VLLM_PATH, "serve", kBambaModel, "--host", "127.0.0.1", "--port", "0",
                    "--sim-time-scale", "0.01", "--sim-load-seconds", "0"},
                   kServing);
    const bool started = sim.Start();
    INFO(sim.error());
    REQUIRE(started);
    auto response = ReleaseClient()->PostJson(
        sim.url() + "/v1/chat/completions",
        Json{{"model", kBambaModel},
             {"messages", Json::array({{{"role", "user"}, {"content", "Plants make energy by"}}})},
             {"max_tokens", 4},
             {"ignore_eos", true}}
            .dump());
    REQUIRE(response.ok());
    CHECK(response->status == 200);
    CHECK(absl::StrContains(sim.log(), "hybrid_kv_cache_manager=on"));
    CHECK(absl::StrContains(sim.log(), "kv_bytes_per_token=12288"));
  }
}

TEST_CASE("kvsim-vllm logs the KV connector factory's line once, on stdout") {
  SimProcess cache(
      "kvsim-lmcache",
      {KV_SIM_LMCACHE_PATH, "server", "--host", "127.0.0.1", "--port", "0", "--http-port", "0",
       "--l1-size-gb", "1", "--eviction-policy", "LRU", "--sim-time-scale", "0.01"},
      "LMCache cache server is running... zmq=");
  const bool cache_started = cache.Start();
  INFO(cache.error());
  REQUIRE(cache_started);
  SECTION("an engine id drawn as vLLM's uuid4") {
    SplitProcess vllm({"serve", kReleaseModel, "--host", "127.0.0.1", "--port", "0",
                       "--sim-load-seconds", "0", "--kv-transfer-config",
                       KvTransferConfig(cache.port())});
    INFO(vllm.err_text());
    REQUIRE_FALSE(vllm.WaitServing().empty());
    const std::string out = vllm.out_text();
    CHECK(Count(out, "Creating v1 connector") == 1);
    CHECK_FALSE(absl::StrContains(vllm.err_text(), "Creating v1 connector"));
    // kvsim-vllm's log format: "<time> I <file>:<line>] <message>".
    const std::regex line(
        R"(\d{4}-\d\d-\d\dT[0-9:.]+Z I [a-z_]+\.cc:\d+\] Creating v1 connector with name: )"
        R"(LMCacheMPConnector and engine_id: [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-)"
        R"([0-9a-f]{12}\n)");
    CHECK(std::regex_match(out, line));
  }
  SECTION("the engine id and the module path from the JSON") {
    SplitProcess vllm(
        {"serve", kReleaseModel, "--host", "127.0.0.1", "--port", "0", "--sim-load-seconds", "0",
         "--kv-transfer-config",
         KvTransferConfig(cache.port(), R"("engine_id":"replica-7","kv_connector_module_path":)"
                                        R"("lmcache.integration.vllm.lmcache_mp_connector",)")});
    INFO(vllm.err_text());
    REQUIRE_FALSE(vllm.WaitServing().empty());
    CHECK(Count(vllm.out_text(), std::string(kCreating) + "replica-7\n") == 1);
  }
}

TEST_CASE("An empty kv_connector_module_path: refused module-path-first, unread registry-first") {
  // The cache server's port is 1 (nothing there): start-up gets as far as the connector does.
  const std::string json = KvTransferConfig(1, R"("kv_connector_module_path":"",)");
  SECTION("module-path-first (the default, newest vLLM)") {
    SplitProcess vllm({"serve", kReleaseModel, "--port", "0", "--kv-transfer-config", json});
    CHECK(vllm.Exit().code == 1);
    CHECK(absl::StrContains(vllm.err_text(),
                            "ValueError: kv_connector_module_path cannot be an empty string."));
    CHECK_FALSE(absl::StrContains(vllm.out_text(), "Creating v1 connector"));
  }
  SECTION("registry-first (older vLLM): the registered class is created") {
    SplitProcess vllm({"serve", kReleaseModel, "--port", "0", "--kv-transfer-config", json,
                       "--sim-connector-lookup=registry-first"});
    const ExitStatus exit = vllm.Exit();  // the cache server is not there: connecting fails
    CHECK(exit.code == 1);
    CHECK(Count(vllm.out_text(), kCreating) == 1);
    CHECK_FALSE(absl::StrContains(vllm.err_text(), "cannot be an empty string"));
    CHECK(absl::StrContains(vllm.err_text(), "cannot reach the LMCache server"));
  }
}

// One replica per counting mode on one kvsim-lmcache, after a third replica has stored the prompt
// there. Each replica sends it twice: the first time all its full chunks are external hits, the
// second time the GPU prefix cache hits all but the last block and nothing more is external.
TEST_CASE("kvsim-vllm --sim-external-counting: what external_prefix_cache_queries counts") {
  SimProcess cache(
      "kvsim-lmcache",
      {KV_SIM_LMCACHE_PATH, "server", "--host", "127.0.0.1", "--port", "0", "--http-port", "0",
       "--l1-size-gb", "2", "--eviction-policy", "LRU", "--sim-time-scale", "0.01"},
      "LMCache cache server is running... zmq=");
  const bool cache_started = cache.Start();
  INFO(cache.error());
  REQUIRE(cache_started);
  auto replica = [&](const std::string& counting) {
    std::vector<std::string> argv = {KV_SIM_VLLM_PATH,
                                     "serve",
                                     kReleaseModel,
                                     "--host",
                                     "127.0.0.1",
                                     "--port",
                                     "0",
                                     "--num-gpu-blocks-override",
                                     "4096",
                                     "--sim-time-scale",
                                     "0.01",
                                     "--sim-load-seconds",
                                     "0",
                                     "--kv-transfer-config",
                                     KvTransferConfig(cache.port())};
    if (!counting.empty()) argv.push_back("--sim-external-counting=" + counting);
    auto sim = std::make_unique<SimProcess>("kvsim-vllm", argv, kServing);
    const bool started = sim->Start();
    INFO(sim->error());
    REQUIRE(started);
    return sim;
  };
  std::string turn = "Itinerary:";
  for (int w = 0; w < 300; ++w) turn += " leg" + std::to_string(w % 83);
  const Json body = {{"messages", Json::array({{{"role", "user"}, {"content", turn}}})},
                     {"max_tokens", 4},
                     {"ignore_eos", true}};
  auto client = ReleaseClient();
  auto chat = [&](SimProcess& sim) {
    auto response = client->PostJson(sim.url() + "/v1/chat/completions", body.dump());
    REQUIRE(response.ok());
    REQUIRE(response->status == 200);
  };
  auto metrics = [&](SimProcess& sim) {
    auto response = client->Get(sim.url() + "/metrics");
    REQUIRE(response.ok());
    return response->body;
  };
  {
    auto warm = replica("");
    chat(*warm);
  }
  struct Row {
    std::string counting;
    bool whole_prompt;
  };
  for (const Row& row :
       {Row{"", false}, Row{"prompt-minus-local", false}, Row{"whole-prompt", true}}) {
    INFO("counting: " << (row.counting.empty() ? "default" : row.counting));
    auto sim = replica(row.counting);
    chat(*sim);
    chat(*sim);
    const std::string text = metrics(*sim);
    const double prompt = SumOfSamples(text, "vllm:prompt_tokens_total");  // both requests
    const double local = SumOfSamples(text, "vllm:prefix_cache_hits_total");
    const double queries = SumOfSamples(text, "vllm:external_prefix_cache_queries_total");
    const double hits = SumOfSamples(text, "vllm:external_prefix_cache_hits_total");
    const int64_t prompt_once = static_cast<int64_t>(prompt) / 2;
    INFO("prompt " << prompt << " local " << local << " queries " << queries << " hits " << hits);
    // Not a whole number of chunks (the last prompt token is always computed, which would cut
    // the last chunk short).
    REQUIRE(prompt_once > 512);
    REQUIRE(prompt_once % 256 != 0);
    // The second request: all but the last block from the GPU.
    CHECK(local == 16 * ((prompt_once - 1) / 16));
    // The first request: its full 256-token chunks from kvsim-lmcache; the second: none.
    CHECK(hits == 256 * (prompt_once / 256));
    CHECK(queries == (row.whole_prompt ? prompt : prompt - local));
  }
}

}  // namespace
}  // namespace kvbench::testing
