#include "agent/link/oversize_event.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/grpc/message_limits.h"
#include "common/log/logging.h"

namespace kvbench::agent {
namespace {

std::string PayloadName(const v1::Event& event) {
  const google::protobuf::FieldDescriptor* field =
      v1::Event::descriptor()->FindFieldByNumber(static_cast<int>(event.payload_case()));
  return field == nullptr ? "empty" : field->name();
}

}  // namespace

bool ReplaceOversizeEvent(v1::Event* event) {
  const size_t bytes = event->ByteSizeLong();
  if (bytes <= kMaxEventBytes) return false;
  v1::Event failure;
  failure.set_agent_id(event->agent_id());
  failure.set_job_id(event->job_id());
  failure.set_scenario_id(event->scenario_id());
  failure.set_attempt(event->attempt());
  failure.set_seq(event->seq());
  failure.set_unix_ms(event->unix_ms());
  failure.mutable_state_change()->set_state(v1::SCENARIO_STATE_FAILED);
  failure.mutable_state_change()->set_reason(
      absl::StrCat("the agent could not send a ", PayloadName(*event), " event of ", bytes,
                   " bytes: over the agent link's limit of ", kMaxEventBytes, " bytes"));
  KV_LOG(ERROR) << "event over the link's limit replaced by its scenario's failure job="
                << event->job_id() << " scenario=" << event->scenario_id()
                << " payload=" << PayloadName(*event) << " bytes=" << bytes
                << " limit=" << kMaxEventBytes;
  *event = std::move(failure);
  return true;
}

}  // namespace kvbench::agent
