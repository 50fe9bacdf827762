#include "tests/bench/controller_scale_fleet.h"

#include <grpcpp/grpcpp.h>

#include <cstdio>

#include "absl/time/clock.h"
#include "common/grpc/stream_write_queue.h"
#include "kvbench/v1/agent_link.grpc.pb.h"

namespace kvbench::bench {

namespace {

// What each simulated agent offers: enough for every SIM scenario (sim-vllm, sim-lmcache, NVMe).
constexpr int64_t kCpuMemoryBytes = int64_t{256} << 30;
constexpr int64_t kNvmeFreeBytes = int64_t{1} << 40;
// How long the destructor waits for gRPC to finish the cancelled streams.
constexpr absl::Duration kCancelWait = absl::Seconds(30);

int64_t UnixMillis() { return absl::ToUnixMillis(absl::Now()); }

}  // namespace

// One simulated agent: one Attach stream, reads always outstanding, one write in flight.
class ScaleAgent : public grpc::ClientBidiReactor<v1::AgentMessage, v1::ControllerMessage> {
 public:
  ScaleAgent(ScaleFleet* fleet, std::string agent_id)
      : fleet_(fleet),
        agent_id_(agent_id),
        outbox_([this](const v1::AgentMessage* message) { StartWrite(message); }) {}

  void Start(v1::AgentLink::Stub* stub) {
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

  void Write(v1::AgentMessage message) {
    std::lock_guard<std::mutex> lock(mu_);
    outbox_.Write(std::move(message));  // dropped once the stream is broken or done
  }

  void SendHeartbeats(int count) {
    for (int i = 0; i < count; ++i) {
      v1::AgentMessage message;
      message.mutable_heartbeat()->set_unix_ms(UnixMillis());
      Write(std::move(message));
    }
  }

  void SendProgress(int64_t seq, const std::string& fallback_job_id) {
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

  void Cancel() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      cancelled_ = true;
    }
    context_.TryCancel();
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard<std::mutex> lock(mu_);
    outbox_.OnWriteDone(ok);  // a failed write: the stream is broken; OnDone brings the status
  }

  void OnReadDone(bool ok) override {
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

  void OnDone(const grpc::Status& status) override {
    bool cancelled;
    {
      std::lock_guard<std::mutex> lock(mu_);
      outbox_.Close();
      cancelled = cancelled_;
    }
    fleet_->OnDone(cancelled, agent_id_ + ": " + std::to_string(status.error_code()) + " " +
                                  status.error_message());
  }

 private:
  ScaleFleet* const fleet_;
  const std::string agent_id_;
  grpc::ClientContext context_;
  v1::ControllerMessage incoming_;  // touched only by the read chain
  int64_t acks_ = 0;                // touched only by the read chain
  std::mutex mu_;
  StreamWriteQueue<v1::AgentMessage> outbox_;  // guarded by mu_
  bool cancelled_ = false;                     // guarded by mu_
  std::string job_id_;                         // guarded by mu_: the last assignment's
  std::string scenario_id_;                    // guarded by mu_
  int attempt_ = 0;                            // guarded by mu_
};

struct ScaleFleet::Stubs {
  std::vector<std::unique_ptr<v1::AgentLink::Stub>> stubs;
};

ScaleFleet::ScaleFleet(std::string address, int agents, int streams_per_channel)
    : address_(std::move(address)), stubs_(std::make_unique<Stubs>()) {
  channels_ = std::max(1, (agents + streams_per_channel - 1) / streams_per_channel);
  agents_.reserve(agents);
  for (int i = 0; i < agents; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "scale-agent-%05d", i);
    agents_.push_back(std::make_unique<ScaleAgent>(this, id));
  }
}

ScaleFleet::~ScaleFleet() {
  if (!attached_) return;  // no stream was ever started
  for (auto& agent : agents_) agent->Cancel();
  const bool all_done =
      WaitUntil([this] { return done_ == size(); }, kCancelWait, /*stop_on_failure=*/false);
  if (!all_done) {
    // gRPC still holds some reactors: leak them rather than free memory it may touch.
    int done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done = done_;
    }
    std::fprintf(stderr, "warning: %d of %d streams never finished; leaking them\n", size() - done,
                 size());
    for (auto& agent : agents_) (void)agent.release();
    (void)stubs_.release();
  }
}

void ScaleFleet::Attach() {
  attached_ = true;
  std::vector<std::unique_ptr<v1::AgentLink::Stub>>& stubs = stubs_->stubs;
  for (int c = 0; c < channels_; ++c) {
    grpc::ChannelArguments args;
    // A channel of its own subchannel pool and distinct args: its own TCP connection.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetInt("kvbench.scale_bench_channel", c);
    stubs.push_back(v1::AgentLink::NewStub(
        grpc::CreateCustomChannel(address_, grpc::InsecureChannelCredentials(), args)));
  }
  for (int i = 0; i < size(); ++i) agents_[i]->Start(stubs[i % channels_].get());
}

bool ScaleFleet::WaitRegistered(absl::Duration timeout) {
  return WaitUntil([this] { return registered_ == size(); }, timeout);
}

ScaleFleet::SteadyTime ScaleFleet::BeginAckPhase(int acks_per_agent) {
  std::lock_guard<std::mutex> lock(mu_);
  ack_target_ = acks_per_agent_so_far_ + acks_per_agent;
  acks_per_agent_so_far_ = ack_target_;
  reached_ = 0;
  return std::chrono::steady_clock::now();
}

void ScaleFleet::SendHeartbeatsThenEvent(int heartbeats, int64_t seq, const std::string& job_id) {
  for (auto& agent : agents_) {
    agent->SendHeartbeats(heartbeats);
    agent->SendProgress(seq, job_id);
  }
}

void ScaleFleet::SendEvents(int64_t first_seq, int count, const std::string& job_id) {
  // Round-robin, so no agent's whole batch is queued before another's first event.
  for (int i = 0; i < count; ++i) {
    for (auto& agent : agents_) agent->SendProgress(first_seq + i, job_id);
  }
}

bool ScaleFleet::WaitAcks(absl::Duration timeout) {
  return WaitUntil([this] { return reached_ == size(); }, timeout);
}

void ScaleFleet::ResetAssignments() {
  std::lock_guard<std::mutex> lock(mu_);
  assignments_ = 0;
}

bool ScaleFleet::WaitAssignments(int count, absl::Duration timeout) {
  return WaitUntil([this, count] { return assignments_ >= count; }, timeout);
}

ScaleFleet::SteadyTime ScaleFleet::first_assignment() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_assignment_;
}

ScaleFleet::SteadyTime ScaleFleet::last_assignment() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_assignment_;
}

ScaleFleet::SteadyTime ScaleFleet::completed_at() const {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_at_;
}

std::string ScaleFleet::first_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_error_;
}

void ScaleFleet::OnRegistered() {
  const SteadyTime now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  if (++registered_ == size()) {
    completed_at_ = now;
    cv_.notify_all();
  }
}

void ScaleFleet::OnAck(int64_t acks_now) {
  const SteadyTime now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  if (acks_now != ack_target_) return;
  if (++reached_ == size()) {
    completed_at_ = now;
    cv_.notify_all();
  }
}

void ScaleFleet::OnAssignment() {
  const SteadyTime now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  if (assignments_++ == 0) first_assignment_ = now;
  last_assignment_ = now;
  cv_.notify_all();
}

void ScaleFleet::OnDone(bool cancelled_by_us, const std::string& error) {
  std::lock_guard<std::mutex> lock(mu_);
  ++done_;
  if (!cancelled_by_us) {
    if (failed_++ == 0) first_error_ = error;
  }
  cv_.notify_all();
}

bool ScaleFleet::WaitUntil(const std::function<bool()>& done, absl::Duration timeout,
                           bool stop_on_failure) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
               [&] { return done() || (stop_on_failure && failed_.load() > 0); });
  return done();
}

}  // namespace kvbench::bench
