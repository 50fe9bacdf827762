#include "common/grpc/leader_hint.h"

#include "absl/strings/cord.h"

namespace kvbench {
namespace {

constexpr char kLeaderPayloadUrl[] = "type.kvbench.dev/kvbench.leader";
constexpr char kAnsweredPayloadUrl[] = "type.kvbench.dev/kvbench.answered";

}  // namespace

void AddLeaderHint(grpc::CallbackServerContext* context, const std::string& leader_address) {
  if (!leader_address.empty()) context->AddTrailingMetadata(kLeaderMetadataKey, leader_address);
}

absl::Status WithLeaderAddress(absl::Status status, const std::string& leader_address) {
  if (!status.ok() && !leader_address.empty()) {
    status.SetPayload(kLeaderPayloadUrl, absl::Cord(leader_address));
  }
  return status;
}

void MarkAnswered(grpc::CallbackServerContext* context, const absl::Status& status) {
  if (absl::IsUnavailable(status)) context->AddTrailingMetadata(kAnsweredMetadataKey, "1");
}

absl::Status WithLeaderHint(absl::Status status, const grpc::ClientContext& context) {
  if (status.ok()) return status;
  const auto& trailing = context.GetServerTrailingMetadata();
  if (trailing.find(kAnsweredMetadataKey) != trailing.end()) {
    status.SetPayload(kAnsweredPayloadUrl, absl::Cord("1"));
  }
  auto it = trailing.find(kLeaderMetadataKey);
  if (it == trailing.end()) return status;
  return WithLeaderAddress(std::move(status), std::string(it->second.data(), it->second.size()));
}

bool AnsweredByController(const absl::Status& status) {
  return status.GetPayload(kAnsweredPayloadUrl).has_value();
}

std::string LeaderHint(const absl::Status& status) {
  auto payload = status.GetPayload(kLeaderPayloadUrl);  // absl::optional<absl::Cord>
  return payload.has_value() ? std::string(*payload) : std::string();
}

}  // namespace kvbench
