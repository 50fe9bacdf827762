#include "tests/bench/controller_scale_fleet.h"

#include <grpcpp/grpcpp.h>

#include <cstdio>

#include "absl/time/clock.h"
#include "kvbench/v1/agent_link.grpc.pb.h"
#include "tests/bench/controller_scale_agent.h"

namespace kvbench::bench {

namespace {

// How long the destructor waits for gRPC to finish the cancelled streams.
constexpr absl::Duration kCancelWait = absl::Seconds(30);

}  // namespace

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
    agents_.push_back(std::make_unique<ScaleAgent>(this, i, id));
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

void ScaleFleet::PrepareRequests(int64_t first_seq, const std::string& job_id, int rows_per_agent,
                                 int rows_per_event) {
  for (auto& agent : agents_) {
    agent->PrepareRequests(first_seq, job_id, rows_per_agent, rows_per_event);
  }
}

void ScaleFleet::SendPrepared() {
  // Round-robin, as SendEvents.
  bool sent = true;
  while (sent) {
    sent = false;
    for (auto& agent : agents_) sent = agent->SendNextPrepared() || sent;
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
