#include "tests/bench/controller_scale_agent.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"
#include "tests/bench/controller_scale_fleet.h"
#include "tests/bench/controller_scale_requests.h"

namespace kvbench::bench {
namespace {

// What each simulated agent offers: enough for every SIM scenario (sim-vllm, sim-lmcache, NVMe).
constexpr int64_t kCpuMemoryBytes = int64_t{256} << 30;
constexpr int64_t kNvmeFreeBytes = int64_t{1} << 40;

int64_t UnixMillis() { return absl::ToUnixMillis(absl::Now()); }

}  // namespace

ScaleAgent::ScaleAgent(ScaleFleet* fleet, int index, std::string agent_id)
    : fleet_(fleet),
      index_(index),
      agent_id_(std::move(agent_id)),
      outbox_([this](const v1::AgentMessage* message) { StartWrite(message); }) {}

void ScaleAgent::Start(v1::AgentLink::Stub* stub) {
  v1::AgentMessage message;
  v1::AgentCapabilities* capabilities = message.mutable_register_()->mutable_capabilities();
  capabilities->set_agent_id(agent_id_);
  capabilities->set_hostname(agent_id_);
  capabilities->set_version("controller-scale-bench");
  capabilities->add_profiles("sim-vllm");
  capabilities->add_profiles("sim-lmcache");
  capabilities->set_cpu_memory_bytes(kCpuMemoryBytes);
  capabilities->set_cpu_cores(16);
  capabilities->set_nvme_cache_path("/nvme");
  capabilities->set_nvme_free_bytes(kNvmeFreeBytes);
  stub->async()->Attach(&context_, this);
  Write(std::move(message));
  StartRead(&incoming_);
  StartCall();
}

void ScaleAgent::Write(v1::AgentMessage message) {
  std::lock_guard<std::mutex> lock(mu_);
  outbox_.Write(std::move(message));  // dropped once the stream is broken or done
}

void ScaleAgent::SendHeartbeats(int count) {
  for (int i = 0; i < count; ++i) {
    v1::AgentMessage message;
    message.mutable_heartbeat()->set_unix_ms(UnixMillis());
    Write(std::move(message));
  }
}

void ScaleAgent::SendProgress(int64_t seq, const std::string& fallback_job_id) {
  v1::AgentMessage message;
  v1::Event* event = message.mutable_event();
  event->set_seq(seq);
  event->set_agent_id(agent_id_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    event->set_job_id(job_id_.empty() ? fallback_job_id : job_id_);
    event->set_scenario_id(scenario_id_);
    event->set_attempt(attempt_);
  }
  event->set_unix_ms(UnixMillis());
  v1::Progress* progress = event->mutable_progress();
  progress->set_phase(v1::SCENARIO_PHASE_REPLAY);
  progress->set_requests_done(seq);
  Write(std::move(message));
}

void ScaleAgent::PrepareRequests(int64_t first_seq, const std::string& job_id, int rows,
                                 int rows_per_event) {
  prepared_.clear();
  next_prepared_ = 0;
  for (int first = 0; first < rows; first += rows_per_event) {
    v1::AgentMessage& message = prepared_.emplace_back();
    v1::Event* event = message.mutable_event();
    event->set_seq(first_seq + static_cast<int64_t>(prepared_.size()) - 1);
    event->set_agent_id(agent_id_);
    event->set_job_id(job_id);
    event->set_scenario_id(agent_id_);  // one scenario per agent: chunks never collide
    event->set_unix_ms(UnixMillis());
    *event->mutable_requests() =
        MakeRequestChunk(index_, first, std::min(rows_per_event, rows - first), rows);
  }
}

bool ScaleAgent::SendNextPrepared() {
  if (next_prepared_ >= prepared_.size()) return false;
  Write(std::move(prepared_[next_prepared_++]));
  return true;
}

void ScaleAgent::Cancel() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
  }
  context_.TryCancel();
}

void ScaleAgent::OnWriteDone(bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  outbox_.OnWriteDone(ok);  // a failed write: the stream is broken; OnDone brings the status
}

void ScaleAgent::OnReadDone(bool ok) {
  if (!ok) return;  // the controller finished its side; OnDone follows
  switch (incoming_.message_case()) {
    case v1::ControllerMessage::kRegistered:
      fleet_->OnRegistered();
      break;
    case v1::ControllerMessage::kAck:
      fleet_->OnAck(++acks_);
      break;
    case v1::ControllerMessage::kAssignment: {
      {
        std::lock_guard<std::mutex> lock(mu_);
        job_id_ = incoming_.assignment().scenario().job_id();
        scenario_id_ = incoming_.assignment().scenario().scenario_id();
        attempt_ = incoming_.assignment().attempt();
      }
      fleet_->OnAssignment();
      break;
    }
    default:
      break;
  }
  incoming_.Clear();
  StartRead(&incoming_);
}

void ScaleAgent::OnDone(const grpc::Status& status) {
  bool cancelled;
  {
    std::lock_guard<std::mutex> lock(mu_);
    outbox_.Close();
    cancelled = cancelled_;
  }
  fleet_->OnDone(cancelled, agent_id_ + ": " + std::to_string(status.error_code()) + " " +
                                status.error_message());
}

}  // namespace kvbench::bench
