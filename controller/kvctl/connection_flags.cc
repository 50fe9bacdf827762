#include "controller/kvctl/connection_flags.h"

#include "absl/strings/ascii.h"
#include "common/auth/token_verifier.h"
#include "common/status/status_macros.h"
#include "controller/kvctl/hinting_controller_client.h"

namespace kvbench::kvctl {
namespace {

std::string FlagOrEnv(const std::string& flag, const char* variable, const KvctlContext& context) {
  if (!flag.empty()) return flag;
  return context.getenv(variable).value_or("");
}

bool EnvTrue(const char* variable, const KvctlContext& context) {
  std::string value = absl::AsciiStrToLower(context.getenv(variable).value_or(""));
  return value == "1" || value == "true" || value == "yes";
}

}  // namespace

void AddConnectionFlags(CLI::App* command, ConnectionFlags* flags) {
  command->add_option("--controller", flags->controller,
                      "Controller address host:port, or several comma-separated (controllers "
                      "sharing a store; default: $KV_CONTROLLER)");
  command->add_option("--token", flags->token, "Bearer token (default: $KV_TOKEN)");
  command->add_option("--ca-cert", flags->ca_cert,
                      "CA certificate (PEM) the controller's is signed by (default: $KV_CA_CERT, "
                      "else the system roots)");
  command->add_flag("--insecure", flags->insecure,
                    "Plaintext, for a controller in insecure mode (default: $KV_INSECURE=1)");
}

absl::StatusOr<client::ControllerConnection> ResolveConnection(const ConnectionFlags& flags,
                                                               const KvctlContext& context) {
  client::ControllerConnection connection;
  connection.address = FlagOrEnv(flags.controller, "KV_CONTROLLER", context);
  if (connection.address.empty()) {
    return absl::InvalidArgumentError("no controller: set KV_CONTROLLER or --controller");
  }
  connection.token = FlagOrEnv(flags.token, "KV_TOKEN", context);
  if (!connection.token.empty()) {
    KV_RETURN_IF_ERROR(
        CheckBearerToken(connection.token, flags.token.empty() ? "$KV_TOKEN" : "--token"));
  }
  connection.ca_cert_path = FlagOrEnv(flags.ca_cert, "KV_CA_CERT", context);
  connection.insecure = flags.insecure || EnvTrue("KV_INSECURE", context);
  return connection;
}

absl::StatusOr<std::unique_ptr<client::ControllerClient>> ConnectController(
    const ConnectionFlags& flags, const KvctlContext& context) {
  absl::StatusOr<client::ControllerConnection> connection = ResolveConnection(flags, context);
  if (!connection.ok()) return connection.status();
  absl::StatusOr<std::unique_ptr<client::ControllerClient>> client =
      client::ControllerClient::Connect(*connection);
  if (!client.ok()) return client.status();
  return std::unique_ptr<client::ControllerClient>(
      new HintingControllerClient(*std::move(client), connection->address));
}

}  // namespace kvbench::kvctl
