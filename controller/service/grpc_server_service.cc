#include "controller/service/grpc_server_service.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include "absl/strings/str_cat.h"
#include "common/grpc/grpc_credentials.h"
#include "common/log/logging.h"
#include "common/net/host_port.h"
#include "common/net/port_holder.h"
#include "common/status/status_macros.h"
#include "controller/service/agent_link_service.h"
#include "controller/service/controller_service.h"

namespace kvbench::controller {

struct GrpcServerService::Impl {
  std::unique_ptr<ControllerService> controller;
  std::unique_ptr<AgentLinkService> agent_link;
  std::unique_ptr<grpc::Server> server;
  bool stopped = false;
};

GrpcServerService::GrpcServerService(std::unique_ptr<Impl> impl, std::string address)
    : impl_(std::move(impl)), address_(std::move(address)) {}

GrpcServerService::~GrpcServerService() { Shutdown(absl::Seconds(1)); }

absl::StatusOr<std::unique_ptr<GrpcServerService>> GrpcServerService::Start(
    const v1::ControllerConfig& config, JobManager* manager, ScheduleFirer* schedules,
    Executor* executor, RegressionQueries* regressions) {
  KV_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials,
                      MakeServerCredentials(config.tls(), config.insecure()));
  std::optional<TokenVerifier> tokens;
  if (!config.insecure()) {
    KV_ASSIGN_OR_RETURN(
        TokenVerifier verifier,
        TokenVerifier::Create({config.token_sha256().begin(), config.token_sha256().end()}));
    tokens = std::move(verifier);
  }
  auto impl = std::make_unique<Impl>();
  impl->controller = std::make_unique<ControllerService>(manager, schedules, executor,
                                                         std::move(tokens), regressions);
  impl->agent_link = std::make_unique<AgentLinkService>(manager, executor,
                                                        /*require_client_certificate=*/
                                                        !config.insecure());
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(config.listen_address(), credentials, &port);
  // gRPC listens with SO_REUSEPORT by default: a second controller on the same port would start
  // and take half the calls into its own store. One listener per port.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(impl->controller.get());
  builder.RegisterService(impl->agent_link.get());
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
  grpc::HealthCheckServiceInterface* health = impl->server->GetHealthCheckService();
  if (health != nullptr) {
    health->SetServingStatus("kvbench.v1.Controller", true);
    health->SetServingStatus("kvbench.v1.AgentLink", true);
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
