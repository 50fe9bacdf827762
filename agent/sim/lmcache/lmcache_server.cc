#include "agent/sim/lmcache/lmcache_server.h"

#include "agent/sim/lmcache/l2_fs_adapter.h"
#include "common/log/logging.h"

namespace kvbench::sim::lmcache {

absl::StatusOr<std::unique_ptr<LmcacheServer>> LmcacheServer::Create(const ServerConfig& config,
                                                                     Executor* executor,
                                                                     const Clock* clock) {
  std::unique_ptr<LmcacheServer> server(new LmcacheServer(config));
  LmcacheMetrics::Options metrics_options;
  metrics_options.l2_name = config.l2 ? L2FsAdapter::kName : "";
  metrics_options.l2_sample_rate = config.metrics_sample_rate;
  metrics_options.seed = config.seed;
  metrics_options.event_drop_rate = config.event_drop_rate;
  metrics_options.legacy_evicted_keys_name = config.legacy_evicted_keys_name;
  metrics_options.l1_usage_histogram = config.l1_usage_histogram;
  metrics_options.throughput_names = config.throughput_names;
  server->metrics_ = std::make_unique<LmcacheMetrics>(metrics_options);
  if (config.l2) {
    absl::StatusOr<std::unique_ptr<L2FsAdapter>> l2 =
        L2FsAdapter::Create(*config.l2, clock, server->metrics_.get());
    if (!l2.ok()) return l2.status();
    server->l2_ = std::move(*l2);
  }
  server->store_ =
      std::make_unique<ChunkStore>(config.store, server->l2_.get(), server->metrics_.get());
  if (!config.sim_clock.empty()) {
    absl::StatusOr<std::unique_ptr<SimClock>> sim_clock = SimClock::Open(config.sim_clock);
    if (!sim_clock.ok()) return sim_clock.status();
    server->sim_clock_ = std::move(*sim_clock);
  }
  server->eviction_loop_ = std::make_unique<EvictionLoop>(
      executor, server->store_.get(), config.time_scale, server->sim_clock_.get());
  EvictionLoop* eviction_loop = server->eviction_loop_.get();
  server->handler_ = std::make_unique<RequestHandler>(
      server->store_.get(), server->sim_clock_ != nullptr ? std::function<void()>([eviction_loop] {
        eviction_loop->CatchUp();
      })
                                                          : std::function<void()>());
  absl::StatusOr<std::unique_ptr<ZmqService>> zmq =
      ZmqService::Create(config.zmq_endpoint, config.max_workers, server->handler_.get());
  if (!zmq.ok()) return zmq.status();
  server->zmq_ = std::move(*zmq);
  HttpApi::Options api_options;
  api_options.healthcheck_path = config.healthcheck_path;
  api_options.metrics_on_http_port = config.separate_metrics_port < 0 && !config.metrics_pushed;
  server->http_api_ =
      std::make_unique<HttpApi>(server->store_.get(), server->metrics_.get(), api_options);
  HttpServer::Options http_options;
  http_options.host = config.http_host;
  http_options.port = config.http_port;
  server->http_ = HttpServer::Create(http_options);
  server->http_api_->Register(server->http_.get());
  if (config.separate_metrics_port >= 0 && !config.metrics_pushed) {
    HttpServer::Options prometheus_options;
    prometheus_options.host = config.http_host;
    prometheus_options.port = config.separate_metrics_port;
    server->metrics_http_ = HttpServer::Create(prometheus_options);
    server->http_api_->RegisterMetrics(server->metrics_http_.get());
  }
  return server;
}

LmcacheServer::LmcacheServer(const ServerConfig& config) : config_(config) {}

LmcacheServer::~LmcacheServer() { Shutdown(); }

absl::Status LmcacheServer::Start() {
  zmq_->Start();
  KV_LOG(INFO) << "ZMQ server listening endpoint=" << zmq_->endpoint()
               << " workers=" << config_.max_workers;
  // The Prometheus server first, as upstream starts it with the observability stack: by the
  // time the health check answers, /metrics does too.
  if (metrics_http_ != nullptr) {
    if (absl::Status status = metrics_http_->Start(); !status.ok()) return status;
    KV_LOG(INFO) << "Prometheus metrics server listening prometheus=http://" << config_.http_host
                 << ":" << metrics_http_->port() << "/metrics";
  }
  if (config_.otlp_endpoint_from_env.has_value()) {
    // --sim-otel-env: otel_init.py@1519dfc2 logs where its OTLP exporter pushes (nothing is
    // pushed here).
    KV_LOG(INFO) << "OTel MeterProvider initialised with OTLP exporter ("
                 << *config_.otlp_endpoint_from_env << ")";
  }
  if (absl::Status status = http_->Start(); !status.ok()) return status;
  eviction_loop_->Start();
  KV_LOG(INFO) << "LMCache cache server is running... zmq=" << zmq_->endpoint() << " http=http://"
               << config_.http_host << ":" << http_->port()
               << " chunk_size=" << config_.store.chunk_size
               << " l1_capacity_bytes=" << config_.store.l1_capacity_bytes
               << " eviction_policy=" << config_.eviction_policy
               << " l2=" << (config_.l2 ? config_.l2->base_path : std::string("none"));
  return absl::OkStatus();
}

void LmcacheServer::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  if (http_ != nullptr) http_->Stop();
  if (metrics_http_ != nullptr) metrics_http_->Stop();
  if (zmq_ != nullptr) zmq_->Stop();
  if (eviction_loop_ != nullptr) eviction_loop_->Stop();
  if (l2_ != nullptr) l2_->WaitIdle();
}

}  // namespace kvbench::sim::lmcache
