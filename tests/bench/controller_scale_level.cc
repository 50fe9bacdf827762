#include "tests/bench/controller_scale_level.h"

#include <grpcpp/grpcpp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status/status_macros.h"
#include "kvbench/v1/controller_service.grpc.pb.h"

namespace kvbench::bench {
namespace {

using SteadyTime = ScaleFleet::SteadyTime;

constexpr absl::Duration kStopGrace = absl::Seconds(30);
constexpr absl::Duration kRpcDeadline = absl::Seconds(60);
// A phase's time limit: a base plus an allowance per message the controller must handle.
constexpr absl::Duration kPhaseBase = absl::Seconds(60);
constexpr absl::Duration kPhasePerMessage = absl::Milliseconds(5);
// ... and per request row it must store.
constexpr absl::Duration kPhasePerRow = absl::Microseconds(50);
// Job id of the events of agents that hold no assignment (the store needs one; none exists).
constexpr char kUnassignedJob[] = "scale-bench-unassigned";
// Job id of the request rows: each agent's are a scenario of its own (the store keys chunks by
// job, scenario, attempt and first index).
constexpr char kRequestsJob[] = "scale-bench-requests";
// × 3 tiers = 18 scenarios, so up to 18 agents get one.
const std::vector<int> kConcurrency = {1, 2, 4, 8, 16, 32};
constexpr int kLogTailLines = 30;

double Seconds(SteadyTime from, SteadyTime to) {
  return std::chrono::duration<double>(to - from).count();
}
std::string Fixed(double value, int decimals) { return absl::StrFormat("%.*f", decimals, value); }
std::string MiB(int64_t kib) { return Fixed(static_cast<double>(kib) / 1024.0, 1); }
// User + system CPU seconds of this process (the load tool) so far.
double SelfCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The 1-minute load average: other work on the host skews every figure.
std::string LoadAverage() {
  double load = 0;
  FILE* file = std::fopen("/proc/loadavg", "r");
  if (file != nullptr) {
    if (std::fscanf(file, "%lf", &load) != 1) load = 0;
    std::fclose(file);
  }
  return Fixed(load, 2);
}

absl::Duration PhaseLimit(int64_t messages, int64_t rows = 0) {
  return kPhaseBase + kPhasePerMessage * messages + kPhasePerRow * rows;
}

v1::JobSpec BenchSpec() {
  v1::JobSpec spec;  // deploy/examples/demo-sim.json, with more concurrency values
  spec.set_name("controller-scale");
  spec.set_model("meta-llama/Llama-3.1-8B-Instruct");
  spec.set_build(v1::NVIDIA);
  spec.set_engine(v1::SIM);
  spec.add_tiers(v1::GPU);
  spec.add_tiers(v1::CPU_RAM);
  spec.add_tiers(v1::NVME);
  spec.set_replicas(1);
  spec.set_tensor_parallel_size(1);
  spec.mutable_dataset()->set_code("tau2-bench-v1");
  spec.mutable_dataset()->set_path("tau2_airline_gpt-4.1_results.json");
  spec.set_num_rounds(5);
  for (int c : kConcurrency) spec.add_concurrency(c);
  spec.set_sessions(kConcurrency.back());
  spec.set_osl(64);
  spec.set_cpu_pool_gb(8);
  spec.set_nvme_pool_gb(64);
  spec.mutable_engine_overrides()->set_num_gpu_blocks(1024);
  spec.mutable_engine_overrides()->set_sim_time_scale(0.05);
  (*spec.mutable_labels())["purpose"] = "controller-scale-bench";
  return spec;
}

}  // namespace

ScaleLevel::ScaleLevel(const ScaleLoad& load, ScaleController& controller, ScaleFleet& fleet,
                       ScaleFollower* follower)
    : load_(load), controller_(controller), fleet_(fleet), follower_(follower) {}

absl::Status ScaleLevel::Run() {
  const int n = fleet_.size();
  Add("agents", "", std::to_string(n));
  Add("TCP connections (channels)", "", std::to_string(fleet_.channels()));
  Add("host load average (1 min) at start", "", LoadAverage());
  int64_t idle_rss_kib = 0;
  int64_t attached_rss_kib = 0;
  KV_RETURN_IF_ERROR(Memory("idle", &idle_rss_kib));
  KV_RETURN_IF_ERROR(FollowerMemory("idle"));
  KV_RETURN_IF_ERROR(Registration());
  KV_RETURN_IF_ERROR(Memory("N attached", &attached_rss_kib));
  figures_.rss_per_agent_kib = static_cast<double>(attached_rss_kib - idle_rss_kib) / n;
  Add("controller RSS per agent", "KiB", Fixed(figures_.rss_per_agent_kib, 2));
  KV_RETURN_IF_ERROR(AckRounds());
  KV_RETURN_IF_ERROR(Heartbeats());
  KV_RETURN_IF_ERROR(Scheduling());
  KV_RETURN_IF_ERROR(Ingest());
  KV_RETURN_IF_ERROR(Requests());
  int64_t end_rss_kib = 0;
  KV_RETURN_IF_ERROR(Memory("end", &end_rss_kib));
  KV_RETURN_IF_ERROR(FollowerMemory("end"));
  // Stopped first, so that the leader's stop below hands the lease to no one.
  if (follower_ != nullptr) KV_RETURN_IF_ERROR(follower_->Stop(kStopGrace));
  absl::StatusOr<absl::Duration> stopped = controller_.Stop(kStopGrace);
  if (!stopped.ok()) return stopped.status();
  Add("SIGTERM -> controller exit, N attached", "s", Fixed(absl::ToDoubleSeconds(*stopped), 3));
  return absl::OkStatus();
}

void ScaleLevel::Add(std::string metric, std::string unit, std::string value) {
  column_.push_back({std::move(metric), std::move(unit), std::move(value)});
}

absl::Status ScaleLevel::PhaseFailed(const std::string& phase) {
  return absl::DeadlineExceededError(absl::StrCat(
      phase, " did not complete; failed streams=", fleet_.failed(), " first error: ",
      fleet_.first_error(), "\ncontroller log tail:\n", controller_.LogTail(kLogTailLines)));
}

absl::Status ScaleLevel::Memory(const std::string& when, int64_t* rss_kib) {
  absl::StatusOr<ProcessMemory> memory = controller_.Memory();
  if (!memory.ok()) return memory.status();
  *rss_kib = memory->rss_kib;
  Add("controller VmRSS, " + when, "MiB", MiB(memory->rss_kib));
  Add("controller VmHWM, " + when, "MiB", MiB(memory->hwm_kib));
  return absl::OkStatus();
}

// A row with or without a follower, so that every store's column has the same rows.
absl::Status ScaleLevel::FollowerMemory(const std::string& when) {
  if (follower_ == nullptr) {
    Add("follower (standby) VmRSS, " + when, "MiB", "-");
    return absl::OkStatus();
  }
  absl::StatusOr<ProcessMemory> memory = follower_->Memory();
  if (!memory.ok()) return memory.status();
  figures_.follower_rss_mib = static_cast<double>(memory->rss_kib) / 1024.0;
  Add("follower (standby) VmRSS, " + when, "MiB", MiB(memory->rss_kib));
  return absl::OkStatus();
}

absl::Status ScaleLevel::Registration() {
  const SteadyTime start = std::chrono::steady_clock::now();
  fleet_.Attach();
  if (!fleet_.WaitRegistered(PhaseLimit(fleet_.size()))) return PhaseFailed("registration");
  const double seconds = Seconds(start, fleet_.completed_at());
  Add("register all N (Attach -> Registered)", "s", Fixed(seconds, 3));
  Add("registrations", "1/s", Fixed(fleet_.size() / seconds, 0));
  return absl::OkStatus();
}

// One ack round: every agent sends `heartbeats` Heartbeats and the Progress event `seq`.
absl::StatusOr<double> ScaleLevel::AckRound(const std::string& phase, int heartbeats, int64_t seq) {
  const SteadyTime start = fleet_.BeginAckPhase(1);
  fleet_.SendHeartbeatsThenEvent(heartbeats, seq, kUnassignedJob);
  if (!fleet_.WaitAcks(PhaseLimit(int64_t{fleet_.size()} * (heartbeats + 1)))) {
    return PhaseFailed(phase);
  }
  return Seconds(start, fleet_.completed_at());
}

// The event closing the heartbeat phase repeats an already stored seq (the controller acks a
// duplicate again), so the heartbeat phase is also timed net of a round of duplicates alone.
// These rounds time a new event and a duplicate per agent.
absl::Status ScaleLevel::AckRounds() {
  absl::StatusOr<double> fresh = AckRound("first event round", 0, 1);
  if (!fresh.ok()) return fresh.status();
  Add("1 new event/agent, all acked", "s", Fixed(*fresh, 3));
  Add("  = durable events at 1 in flight/agent", "1/s", Fixed(fleet_.size() / *fresh, 0));
  absl::StatusOr<double> duplicate = AckRound("duplicate event round", 0, 1);
  if (!duplicate.ok()) return duplicate.status();
  duplicate_round_s_ = *duplicate;
  Add("1 duplicate event/agent, all acked", "s", Fixed(*duplicate, 3));
  return absl::OkStatus();
}

// The controller's and the load tool's CPU over a phase of `seconds` (in % of one core), and
// the controller's CPU per message: steadier than rates on a shared host.
void ScaleLevel::AddCpuRows(double controller_cpu, double self_cpu, double seconds, double messages,
                            const std::string& message) {
  const double used = controller_.CpuSeconds() - controller_cpu;
  Add("  controller CPU per " + message, "us", Fixed(used / messages * 1e6, 1));
  Add("  controller CPU during the phase", "%", Fixed(100 * used / seconds, 0));
  Add("  load tool CPU during the phase", "%",
      Fixed(100 * (SelfCpuSeconds() - self_cpu) / seconds, 0));
}

absl::Status ScaleLevel::Heartbeats() {
  const double cpu = controller_.CpuSeconds();
  const double self_cpu = SelfCpuSeconds();
  absl::StatusOr<double> seconds = AckRound("heartbeat phase", load_.heartbeats, 1);
  if (!seconds.ok()) return seconds.status();
  const double heartbeats = static_cast<double>(fleet_.size()) * load_.heartbeats;
  Add(absl::StrCat(load_.heartbeats, " heartbeats/agent + duplicate event, all acked"), "s",
      Fixed(*seconds, 3));
  Add("heartbeats processed", "1/s", Fixed(heartbeats / *seconds, 0));
  if (*seconds > duplicate_round_s_) {
    Add("  net of the duplicate round", "1/s",
        Fixed(heartbeats / (*seconds - duplicate_round_s_), 0));
  }
  AddCpuRows(cpu, self_cpu, *seconds, heartbeats, "heartbeat");
  return absl::OkStatus();
}

absl::Status ScaleLevel::Scheduling() {
  auto stub = v1::Controller::NewStub(
      grpc::CreateChannel(controller_.address(), grpc::InsecureChannelCredentials()));
  v1::SubmitJobRequest request;
  *request.mutable_spec() = BenchSpec();
  request.set_request_id(absl::StrCat("scale-bench-", fleet_.size()));
  v1::SubmitJobResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + absl::ToChronoSeconds(kRpcDeadline));
  fleet_.ResetAssignments();
  const SteadyTime start = std::chrono::steady_clock::now();
  grpc::Status status = stub->SubmitJob(&context, request, &response);
  const SteadyTime answered = std::chrono::steady_clock::now();
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("SubmitJob: ", status.error_message()));
  }
  const int expected = std::min(response.scenarios_size(), fleet_.size());
  if (!fleet_.WaitAssignments(expected, PhaseLimit(fleet_.size()))) {
    return PhaseFailed("scheduling");
  }
  figures_.first_assignment_ms = Seconds(start, fleet_.first_assignment()) * 1e3;
  Add("SubmitJob RPC", "ms", Fixed(Seconds(start, answered) * 1e3, 2));
  Add("submit -> first Assignment", "ms", Fixed(figures_.first_assignment_ms, 2));
  Add(absl::StrCat("submit -> all ", expected, " scenarios assigned"), "ms",
      Fixed(Seconds(start, fleet_.last_assignment()) * 1e3, 2));
  return absl::OkStatus();
}

absl::Status ScaleLevel::Ingest() {
  const int events = load_.events;
  const double cpu = controller_.CpuSeconds();
  const double self_cpu = SelfCpuSeconds();
  const SteadyTime start = fleet_.BeginAckPhase(events);
  fleet_.SendEvents(2, events, kUnassignedJob);
  const int64_t total = int64_t{fleet_.size()} * events;
  if (!fleet_.WaitAcks(PhaseLimit(total))) return PhaseFailed("ingest");
  const double seconds = Seconds(start, fleet_.completed_at());
  figures_.events_per_s = static_cast<double>(total) / seconds;
  Add(absl::StrCat(events, " durable events/agent, all acked"), "s", Fixed(seconds, 3));
  Add("durable events ingested", "1/s", Fixed(figures_.events_per_s, 0));
  AddCpuRows(cpu, self_cpu, seconds, static_cast<double>(total), "event");
  return absl::OkStatus();
}

// Every agent sends its scenario's request rows as RequestRecords events (as an agent does
// before a scenario's result), all at once: the controller stores each chunk with its event.
absl::Status ScaleLevel::Requests() {
  if (load_.request_rows == 0) return absl::OkStatus();
  const int n = fleet_.size();
  int rows_per_agent = load_.request_rows;
  if (load_.cap_request_rows) {
    rows_per_agent = static_cast<int>(
        std::min<int64_t>(rows_per_agent, std::max<int64_t>(1, kMaxRequestRowsPerLevel / n)));
  }
  const int per_agent = (rows_per_agent + load_.rows_per_event - 1) / load_.rows_per_event;
  fleet_.PrepareRequests(2 + load_.events, kRequestsJob, rows_per_agent, load_.rows_per_event);
  const double cpu = controller_.CpuSeconds();
  const double self_cpu = SelfCpuSeconds();
  const SteadyTime start = fleet_.BeginAckPhase(per_agent);
  fleet_.SendPrepared();
  const int64_t events = int64_t{n} * per_agent;
  const int64_t rows = int64_t{n} * rows_per_agent;
  if (!fleet_.WaitAcks(PhaseLimit(events, rows))) return PhaseFailed("request rows");
  const double seconds = Seconds(start, fleet_.completed_at());
  figures_.rows_per_s = static_cast<double>(rows) / seconds;
  Add("request rows/agent (in RequestRecords events)", "",
      absl::StrCat(rows_per_agent, " (", per_agent, ")"));
  Add("  all request rows acked", "s", Fixed(seconds, 3));
  Add("request rows ingested", "1/s", Fixed(figures_.rows_per_s, 0));
  Add("  = request events ingested", "1/s", Fixed(static_cast<double>(events) / seconds, 0));
  AddCpuRows(cpu, self_cpu, seconds, static_cast<double>(rows), "request row");
  return absl::OkStatus();
}

}  // namespace kvbench::bench
