#pragma once

// Transport credentials of the daemons and clients, built from the configs' TlsConfig. The one
// place that reads certificate files.
//
// - The controller serves TLS with its certificate and *requests* a client certificate, verified
//   against tls.ca_cert_path when presented: agents present one (mTLS), kvctl and schedulers do
//   not and authenticate with a bearer token instead. The AgentLink service refuses a stream
//   whose peer has no verified certificate (HasVerifiedClientCertificate).
// - Agents dial with their certificate and key, trusting tls.ca_cert_path.
// - kvctl dials with TLS trusting a CA file (or the system roots when none is given).
// `insecure` (explicit in the config, for local use) gives plaintext credentials.

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_context.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kvbench/v1/config.pb.h"

namespace kvbench {

// Errors name the config field and the file: INVALID_ARGUMENT when a path is empty, NOT_FOUND when
// the file cannot be read, FAILED_PRECONDITION when it holds no PEM certificate (ca_cert_path,
// cert_path), no unencrypted PEM private key (key_path), or a key that is not the certificate's.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const v1::TlsConfig& tls, bool insecure);
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeAgentChannelCredentials(
    const v1::TlsConfig& tls, bool insecure);
// ca_cert_path "" = the system's roots.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeClientChannelCredentials(
    const std::string& ca_cert_path, bool insecure);

// True when the call's peer presented a client certificate that the server verified (against
// tls.ca_cert_path) and that names it (a subject CN or a SAN).
bool HasVerifiedClientCertificate(const grpc::ServerContextBase& context);

// The names the peer's verified client certificate carries: its subject CN, then its subject
// alternative names (DNS names, ...), as gRPC's auth context reports them; empty without one.
std::vector<std::string> ClientCertificateNames(const grpc::ServerContextBase& context);

}  // namespace kvbench
