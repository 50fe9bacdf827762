#include <catch2/catch.hpp>

#include <string>

#include <prometheus/counter.h>

#include "common/http/curl_http_client.h"
#include "common/loop/event_loop.h"
#include "common/metrics/daemon_info_metrics.h"
#include "common/metrics/loop_metrics_collector.h"
#include "common/metrics/metrics_server.h"
#include "common/version/version.h"

namespace kvbench {
namespace {

// One server for the binary: prometheus-cpp's Exposer takes ~2 s to stop once it has served.
MetricsServer& SharedServer() {
  static std::unique_ptr<MetricsServer> server = [] {
    absl::StatusOr<std::unique_ptr<MetricsServer>> created = MetricsServer::Create("127.0.0.1:0");
    REQUIRE(created.ok());
    return std::move(*created);
  }();
  return *server;
}

std::string Scrape(const std::string& url) {
  auto client = CurlHttpClient::Create();
  REQUIRE(client.ok());
  absl::StatusOr<HttpResponse> response = (*client)->Get(url);
  REQUIRE(response.ok());
  CHECK(response->status == 200);
  return response->body;
}

TEST_CASE("Our /metrics serves build info, start time and event-loop task counters") {
  MetricsServer& server = SharedServer();
  CHECK(server.port() > 0);
  CHECK(server.url() == "http://127.0.0.1:" + std::to_string(server.port()) + "/metrics");
  RegisterDaemonInfoMetrics(&server.registry(), "agent", absl::FromUnixSeconds(1767225600));
  EventLoop loop("agent");
  loop.Post("agent.housekeeping", [] {});
  loop.Post("agent.housekeeping", [&] { loop.Stop(); });
  loop.Run();
  auto collector = std::make_shared<LoopMetricsCollector>("agent", &loop);
  server.RegisterCollectable(collector);

  std::string body = Scrape(server.url());
  INFO(body);
  CHECK(body.find(std::string("kvbench_build_info{component=\"agent\",revision=\"") +
                  kGitRevision + "\",version=\"" + kVersion + "\"} 1") != std::string::npos);
  CHECK(body.find("kvbench_process_start_time_seconds{component=\"agent\"} 1767225600") !=
        std::string::npos);
  CHECK(body.find("kvbench_loop_tasks_total{loop=\"agent\",task=\"agent.housekeeping\"} 2") !=
        std::string::npos);
  CHECK(body.find("# TYPE kvbench_loop_task_seconds_total counter") != std::string::npos);
}

TEST_CASE("A metrics address that cannot be bound is UNAVAILABLE, a malformed one INVALID") {
  MetricsServer& server = SharedServer();
  absl::StatusOr<std::unique_ptr<MetricsServer>> busy =
      MetricsServer::Create("127.0.0.1:" + std::to_string(server.port()));
  REQUIRE_FALSE(busy.ok());
  CHECK(busy.status().code() == absl::StatusCode::kUnavailable);
  CHECK(MetricsServer::Create("localhost").status().code() ==
        absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kvbench
