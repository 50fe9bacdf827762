#include "controller/service/call_authentication.h"

#include "common/log/logging.h"

namespace kvbench::controller {

absl::Status AuthenticateCall(const std::optional<TokenVerifier>& tokens,
                              grpc::CallbackServerContext* context, const char* method) {
  if (!tokens.has_value()) return absl::OkStatus();
  const auto& metadata = context->client_metadata();
  auto it = metadata.find("authorization");
  absl::string_view authorization;
  if (it != metadata.end()) authorization = absl::string_view(it->second.data(), it->second.size());
  absl::Status status = tokens->Check(authorization);
  if (!status.ok()) {
    KV_LOG(WARNING) << "refused a call method=" << method << " peer=" << context->peer()
                    << " reason=\"" << status.message() << "\"";
  }
  return status;
}

}  // namespace kvbench::controller
