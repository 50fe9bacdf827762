#include "agent/sim/lmcache/http_api.h"

#include <nlohmann/json.hpp>

#include "common/log/logging.h"

namespace kvbench::sim::lmcache {
namespace {

constexpr char kJson[] = "application/json";
constexpr char kPrometheusText[] = "text/plain; version=0.0.4; charset=utf-8";

void RespondJson(HttpResponder& responder, const nlohmann::json& body) {
  responder.Respond(200, {{"Content-Type", kJson}}, body.dump());
}

}  // namespace

HttpApi::HttpApi(ChunkStore* store, LmcacheMetrics* metrics, Options options)
    : options_(std::move(options)), store_(store), metrics_(metrics) {}

void HttpApi::RegisterMetrics(HttpServer* server) {
  server->Handle("GET", "/metrics",
                 [this](const HttpServerRequest&, std::shared_ptr<HttpResponder> responder) {
                   responder->Respond(200, {{"Content-Type", kPrometheusText}}, metrics_->Render());
                 });
}

void HttpApi::Register(HttpServer* server) {
  server->Handle("GET", options_.healthcheck_path,
                 [](const HttpServerRequest&, std::shared_ptr<HttpResponder> responder) {
                   RespondJson(*responder, {{"status", "healthy"}});
                 });
  if (options_.metrics_on_http_port) RegisterMetrics(server);
  server->Handle("POST", "/clear-cache",
                 [this](const HttpServerRequest&, std::shared_ptr<HttpResponder> responder) {
                   size_t cleared = store_->ClearL1();
                   KV_LOG(INFO) << "cleared the L1 cache chunks=" << cleared;
                   RespondJson(*responder, {{"status", "ok"}, {"cleared_chunks", cleared}});
                 });
  server->Handle("POST", "/metrics/reset",
                 [this](const HttpServerRequest&, std::shared_ptr<HttpResponder> responder) {
                   metrics_->Reset();
                   RespondJson(*responder, {{"status", "ok"}});
                 });
  server->Handle("GET", "/status",
                 [this](const HttpServerRequest&, std::shared_ptr<HttpResponder> responder) {
                   const ChunkStoreOptions& options = store_->options();
                   nlohmann::json l2 = nullptr;
                   if (L2Adapter* adapter = store_->l2(); adapter != nullptr) {
                     l2 = {{"name", adapter->name()},
                           {"usage_bytes", adapter->usage_bytes()},
                           {"chunks", adapter->object_count()}};
                   }
                   RespondJson(*responder, {{"status", "healthy"},
                                            {"chunk_size", options.chunk_size},
                                            {"l1",
                                             {{"capacity_bytes", options.l1_capacity_bytes},
                                              {"used_bytes", store_->l1_used_bytes()},
                                              {"chunks", store_->l1_chunk_count()}}},
                                            {"l2", l2}});
                 });
}

}  // namespace kvbench::sim::lmcache
