#include "controller/client/controller_client.h"

#include "controller/client/grpc_controller_client.h"

namespace kvbench::client {

absl::StatusOr<std::unique_ptr<ControllerClient>> ControllerClient::Connect(
    const ControllerConnection& connection) {
  absl::StatusOr<std::unique_ptr<GrpcControllerClient>> client =
      GrpcControllerClient::Create(connection);
  if (!client.ok()) return client.status();
  return std::unique_ptr<ControllerClient>(std::move(*client));
}

}  // namespace kvbench::client
