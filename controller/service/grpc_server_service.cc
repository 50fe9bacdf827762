#include "controller/service/grpc_server_service.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include "absl/strings/str_cat.h"
#include "common/grpc/grpc_credentials.h"
#include "common/grpc/message_limits.h"
#include "common/log/logging.h"
#include "common/net/host_port.h"
#include "common/net/port_holder.h"
#include "common/status/status_macros.h"
#include "controller/service/agent_link_service.h"
#include "controller/service/controller_service.h"
#include "controller/service/standby_agent_link_service.h"
#include "controller/service/standby_controller_service.h"
#include "controller/service/stored_views.h"

namespace kvbench::controller {

struct GrpcServerService::Impl {
  std::unique_ptr<StoredViews> views;  // a standby's
  std::vector<std::unique_ptr<grpc::Service>> services;
  std::unique_ptr<grpc::Server> server;
  bool stopped = false;
};

GrpcServerService::GrpcServerService(std::unique_ptr<Impl> impl, std::string address)
    : impl_(std::move(impl)), address_(std::move(address)) {}

GrpcServerService::~GrpcServerService() { Shutdown(absl::Seconds(1)); }

namespace {

// The bearer tokens a call must carry; nullopt in insecure mode.
absl::StatusOr<std::optional<TokenVerifier>> Tokens(const v1::ControllerConfig& config) {
  if (config.insecure()) return std::optional<TokenVerifier>();
  KV_ASSIGN_OR_RETURN(TokenVerifier verifier, TokenVerifier::Create({config.token_sha256().begin(),
                                                                     config.token_sha256().end()}));
  return std::optional<TokenVerifier>(std::move(verifier));
}

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcServerService>> GrpcServerService::Start(
    const v1::ControllerConfig& config, JobManager* manager, ScheduleFirer* schedules,
    Executor* executor, RegressionQueries* regressions) {
  KV_ASSIGN_OR_RETURN(std::optional<TokenVerifier> tokens, Tokens(config));
  auto impl = std::make_unique<Impl>();
  impl->services.push_back(std::make_unique<ControllerService>(manager, schedules, executor,
                                                               std::move(tokens), regressions));
  impl->services.push_back(std::make_unique<AgentLinkService>(manager, executor,
                                                              /*require_client_certificate=*/
                                                              !config.insecure()));
  return Serve(config, std::move(impl), /*serving=*/true);
}

absl::StatusOr<std::unique_ptr<GrpcServerService>> GrpcServerService::StartStandby(
    const v1::ControllerConfig& config, Store* store, Clock* clock, const LeaderView* leader) {
  KV_ASSIGN_OR_RETURN(std::optional<TokenVerifier> tokens, Tokens(config));
  auto impl = std::make_unique<Impl>();
  impl->views = std::make_unique<StoredViews>(store, clock);
  impl->services.push_back(
      std::make_unique<StandbyControllerService>(impl->views.get(), leader, std::move(tokens)));
  impl->services.push_back(std::make_unique<StandbyAgentLinkService>(leader));
  return Serve(config, std::move(impl), /*serving=*/false);
}

absl::StatusOr<std::unique_ptr<GrpcServerService>> GrpcServerService::Serve(
    const v1::ControllerConfig& config, std::unique_ptr<Impl> impl, bool serving) {
  KV_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials,
                      MakeServerCredentials(config.tls(), config.insecure()));
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(config.listen_address(), credentials, &port);
  // gRPC listens with SO_REUSEPORT by default: a second controller on the same port would start
  // and take half the calls into its own store. One listener per port.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // The agents' side of this number bounds what they spool and send (message_limits.h).
  builder.SetMaxReceiveMessageSize(static_cast<int>(kMaxAgentMessageBytes));
  for (const std::unique_ptr<grpc::Service>& service : impl->services) {
    builder.RegisterService(service.get());
  }
  // Both ends ping an idle connection, so a half-open one (a peer gone without a FIN, a NAT
  // entry dropped) is noticed in seconds, not at TCP's retransmission timeout. Agents ping
  // every 20 s (agent/link); pings from them as often as every 10 s are welcome.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 30000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || port == 0) {
    absl::StatusOr<HostPort> wanted = ParseHostPort(config.listen_address());
    const std::string holder =
        wanted.ok() && wanted->port > 0 ? DescribeTcpListener(wanted->port) : "";
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", config.listen_address(),
        holder.empty() ? " (in use or not local)" : absl::StrCat(": in use by ", holder)));
  }
  // A standby's services are NOT_SERVING: a load balancer's health check sends clients to the
  // leader (the server itself, "", serves: a standby answers reads).
  grpc::HealthCheckServiceInterface* health = impl->server->GetHealthCheckService();
  if (health != nullptr) {
    health->SetServingStatus("kvbench.v1.Controller", serving);
    health->SetServingStatus("kvbench.v1.AgentLink", serving);
  }
  KV_ASSIGN_OR_RETURN(HostPort listen, ParseHostPort(config.listen_address()));
  listen.port = port;
  std::string address = listen.ToString();
  return std::unique_ptr<GrpcServerService>(new GrpcServerService(std::move(impl), address));
}

void GrpcServerService::Shutdown(absl::Duration grace) {
  if (impl_ == nullptr || impl_->stopped) return;
  impl_->stopped = true;
  if (grpc::HealthCheckServiceInterface* health = impl_->server->GetHealthCheckService()) {
    health->Shutdown();
  }
  impl_->server->Shutdown(std::chrono::system_clock::now() + absl::ToChronoNanoseconds(grace));
  impl_->server->Wait();
}

}  // namespace kvbench::controller
