#pragma once

// How a remote kvctl subcommand finds its controller: --controller, --token, --ca-cert and
// --insecure, each falling back to the environment (KV_CONTROLLER, KV_TOKEN, KV_CA_CERT,
// KV_INSECURE=1).

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "controller/client/controller_client.h"
#include "controller/kvctl/kvctl_command.h"

namespace kvbench::kvctl {

struct ConnectionFlags {
  std::string controller;
  std::string token;
  std::string ca_cert;
  bool insecure = false;
};

// Adds the four flags to a subcommand.
void AddConnectionFlags(CLI::App* command, ConnectionFlags* flags);

// Flags first, then the environment. INVALID_ARGUMENT "no controller: set KV_CONTROLLER or
// --controller" when neither names an address.
absl::StatusOr<client::ControllerConnection> ResolveConnection(const ConnectionFlags& flags,
                                                               const KvctlContext& context);

// ResolveConnection, then ControllerClient::Connect, wrapped so that an unreachable controller's
// UNAVAILABLE says what to do (HintingControllerClient).
absl::StatusOr<std::unique_ptr<client::ControllerClient>> ConnectController(
    const ConnectionFlags& flags, const KvctlContext& context);

}  // namespace kvbench::kvctl
