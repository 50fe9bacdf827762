// Controller scale: a fresh kv-controller child per fleet size N, driven by N simulated agents in
// this process (ScaleFleet: N AgentLink.Attach streams over ~N/100 TCP connections). Prints, per
// N, the controller's memory idle and with N attached, the time to register N agents, the
// heartbeat processing rate, the scheduling latency of one SIM job, the durable event ingest rate
// and the SIGTERM-to-exit time. Prints figures only (STYLE.md rule 20).
//
//   build/bin/kv_bench_controller_scale [--agents 100,1000,10000] [--heartbeats-per-agent K]
//                                       [--events-per-agent E] [--controller PATH]
#include <grpcpp/grpcpp.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/status/status_macros.h"
#include "kvbench/v1/controller_service.grpc.pb.h"
#include "tests/bench/controller_scale_controller.h"
#include "tests/bench/controller_scale_fleet.h"
#include "tests/support/postgres_server.h"

namespace {

using kvbench::bench::ScaleController;
using kvbench::bench::ScaleFleet;
using SteadyTime = ScaleFleet::SteadyTime;

const std::vector<int> kDefaultAgents = {100, 1000, 10000};
// Heartbeats each agent sends back to back in the heartbeat phase: enough that they, not the
// one event closing the phase (a durable commit), weigh most.
constexpr int kDefaultHeartbeats = 100;
// Durable Progress events each agent sends in the ingest phase.
constexpr int kDefaultEvents = 10;
constexpr absl::Duration kReadyTimeout = absl::Seconds(30);
constexpr absl::Duration kStopGrace = absl::Seconds(30);
constexpr absl::Duration kRpcDeadline = absl::Seconds(60);
// A phase's time limit: a base plus an allowance per message the controller must handle.
constexpr absl::Duration kPhaseBase = absl::Seconds(60);
constexpr absl::Duration kPhasePerMessage = absl::Milliseconds(5);
// Job id of the events of agents that hold no assignment (the store needs one; none exists).
constexpr char kUnassignedJob[] = "scale-bench-unassigned";
// × 3 tiers = 18 scenarios, so up to 18 agents get one.
const std::vector<int> kConcurrency = {1, 2, 4, 8, 16, 32};
constexpr int kLogTailLines = 30;

struct Options {
  std::string controller = KV_CONTROLLER_PATH;  // the kv-controller binary under test
  std::vector<int> agents = kDefaultAgents;
  int heartbeats = kDefaultHeartbeats;
  int events = kDefaultEvents;
  bool postgresql = false;  // --store postgresql
};

struct Row {
  std::string metric;
  std::string unit;
  std::string value;
};
using Column = std::vector<Row>;

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

absl::Duration PhaseLimit(int64_t messages) { return kPhaseBase + kPhasePerMessage * messages; }

kvbench::v1::JobSpec BenchSpec() {
  kvbench::v1::JobSpec spec;  // deploy/examples/demo-sim.json, with more concurrency values
  spec.set_name("controller-scale");
  spec.set_model("meta-llama/Llama-3.1-8B-Instruct");
  spec.set_build(kvbench::v1::NVIDIA);
  spec.set_engine(kvbench::v1::SIM);
  spec.add_tiers(kvbench::v1::GPU);
  spec.add_tiers(kvbench::v1::CPU_RAM);
  spec.add_tiers(kvbench::v1::NVME);
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

// One fleet size against one fresh controller; each phase appends its rows.
class Level {
 public:
  Level(const Options& options, ScaleController& controller, ScaleFleet& fleet)
      : options_(options), controller_(controller), fleet_(fleet) {}

  absl::Status Run() {
    const int n = fleet_.size();
    Add("agents", "", std::to_string(n));
    Add("TCP connections (channels)", "", std::to_string(fleet_.channels()));
    Add("host load average (1 min) at start", "", LoadAverage());
    int64_t idle_rss_kib = 0;
    int64_t attached_rss_kib = 0;
    KV_RETURN_IF_ERROR(Memory("idle", &idle_rss_kib));
    KV_RETURN_IF_ERROR(Registration());
    KV_RETURN_IF_ERROR(Memory("N attached", &attached_rss_kib));
    Add("controller RSS per agent", "KiB",
        Fixed(static_cast<double>(attached_rss_kib - idle_rss_kib) / n, 2));
    KV_RETURN_IF_ERROR(AckRounds());
    KV_RETURN_IF_ERROR(Heartbeats());
    KV_RETURN_IF_ERROR(Scheduling());
    KV_RETURN_IF_ERROR(Ingest());
    int64_t end_rss_kib = 0;
    KV_RETURN_IF_ERROR(Memory("end", &end_rss_kib));
    absl::StatusOr<absl::Duration> stopped = controller_.Stop(kStopGrace);
    if (!stopped.ok()) return stopped.status();
    Add("SIGTERM -> controller exit, N attached", "s", Fixed(absl::ToDoubleSeconds(*stopped), 3));
    return absl::OkStatus();
  }

  Column& column() { return column_; }

 private:
  void Add(std::string metric, std::string unit, std::string value) {
    column_.push_back({std::move(metric), std::move(unit), std::move(value)});
  }

  absl::Status PhaseFailed(const std::string& phase) {
    return absl::DeadlineExceededError(absl::StrCat(
        phase, " did not complete; failed streams=", fleet_.failed(), " first error: ",
        fleet_.first_error(), "\ncontroller log tail:\n", controller_.LogTail(kLogTailLines)));
  }

  absl::Status Memory(const std::string& when, int64_t* rss_kib) {
    absl::StatusOr<kvbench::bench::ProcessMemory> memory = controller_.Memory();
    if (!memory.ok()) return memory.status();
    *rss_kib = memory->rss_kib;
    Add("controller VmRSS, " + when, "MiB", MiB(memory->rss_kib));
    Add("controller VmHWM, " + when, "MiB", MiB(memory->hwm_kib));
    return absl::OkStatus();
  }

  absl::Status Registration() {
    const SteadyTime start = std::chrono::steady_clock::now();
    fleet_.Attach();
    if (!fleet_.WaitRegistered(PhaseLimit(fleet_.size()))) return PhaseFailed("registration");
    const double seconds = Seconds(start, fleet_.completed_at());
    Add("register all N (Attach -> Registered)", "s", Fixed(seconds, 3));
    Add("registrations", "1/s", Fixed(fleet_.size() / seconds, 0));
    return absl::OkStatus();
  }

  // One ack round: every agent sends `heartbeats` Heartbeats and the Progress event `seq`.
  absl::StatusOr<double> AckRound(const std::string& phase, int heartbeats, int64_t seq) {
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
  absl::Status AckRounds() {
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
  void AddCpuRows(double controller_cpu, double self_cpu, double seconds, double messages,
                  const std::string& message) {
    const double used = controller_.CpuSeconds() - controller_cpu;
    Add("  controller CPU per " + message, "us", Fixed(used / messages * 1e6, 1));
    Add("  controller CPU during the phase", "%", Fixed(100 * used / seconds, 0));
    Add("  load tool CPU during the phase", "%",
        Fixed(100 * (SelfCpuSeconds() - self_cpu) / seconds, 0));
  }

  absl::Status Heartbeats() {
    const double cpu = controller_.CpuSeconds();
    const double self_cpu = SelfCpuSeconds();
    absl::StatusOr<double> seconds = AckRound("heartbeat phase", options_.heartbeats, 1);
    if (!seconds.ok()) return seconds.status();
    const double heartbeats = static_cast<double>(fleet_.size()) * options_.heartbeats;
    Add(absl::StrCat(options_.heartbeats, " heartbeats/agent + duplicate event, all acked"), "s",
        Fixed(*seconds, 3));
    Add("heartbeats processed", "1/s", Fixed(heartbeats / *seconds, 0));
    if (*seconds > duplicate_round_s_) {
      Add("  net of the duplicate round", "1/s",
          Fixed(heartbeats / (*seconds - duplicate_round_s_), 0));
    }
    AddCpuRows(cpu, self_cpu, *seconds, heartbeats, "heartbeat");
    return absl::OkStatus();
  }

  absl::Status Scheduling() {
    auto stub = kvbench::v1::Controller::NewStub(
        grpc::CreateChannel(controller_.address(), grpc::InsecureChannelCredentials()));
    kvbench::v1::SubmitJobRequest request;
    *request.mutable_spec() = BenchSpec();
    request.set_request_id(absl::StrCat("scale-bench-", fleet_.size()));
    kvbench::v1::SubmitJobResponse response;
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
    Add("SubmitJob RPC", "ms", Fixed(Seconds(start, answered) * 1e3, 2));
    Add("submit -> first Assignment", "ms",
        Fixed(Seconds(start, fleet_.first_assignment()) * 1e3, 2));
    Add(absl::StrCat("submit -> all ", expected, " scenarios assigned"), "ms",
        Fixed(Seconds(start, fleet_.last_assignment()) * 1e3, 2));
    return absl::OkStatus();
  }

  absl::Status Ingest() {
    const int events = options_.events;
    const double cpu = controller_.CpuSeconds();
    const double self_cpu = SelfCpuSeconds();
    const SteadyTime start = fleet_.BeginAckPhase(events);
    fleet_.SendEvents(2, events, kUnassignedJob);
    const int64_t total = int64_t{fleet_.size()} * events;
    if (!fleet_.WaitAcks(PhaseLimit(total))) return PhaseFailed("ingest");
    const double seconds = Seconds(start, fleet_.completed_at());
    Add(absl::StrCat(events, " durable events/agent, all acked"), "s", Fixed(seconds, 3));
    Add("durable events ingested", "1/s", Fixed(static_cast<double>(total) / seconds, 0));
    AddCpuRows(cpu, self_cpu, seconds, static_cast<double>(total), "event");
    return absl::OkStatus();
  }

  const Options& options_;
  ScaleController& controller_;
  ScaleFleet& fleet_;
  Column column_;
  double duplicate_round_s_ = 0;
};

absl::StatusOr<Column> RunLevel(const Options& options, int agents,
                                kvbench::testing::PostgresServer* postgres) {
  std::string dsn;
  if (postgres != nullptr) {
    KV_ASSIGN_OR_RETURN(dsn, postgres->CreateDatabase());
  }
  absl::StatusOr<std::unique_ptr<ScaleController>> controller =
      ScaleController::Start(options.controller, kReadyTimeout, dsn);
  if (!controller.ok()) return controller.status();
  // The fleet is declared after the controller, so its streams are cancelled first.
  ScaleFleet fleet((*controller)->address(), agents);
  Level level(options, **controller, fleet);
  absl::Status run = level.Run();
  if (!run.ok()) return run;
  return std::move(level.column());
}

void PrintTable(const std::vector<int>& agents, const std::vector<absl::StatusOr<Column>>& runs) {
  const Column* labels = nullptr;
  for (const auto& run : runs) {
    if (run.ok()) labels = &*run;
  }
  if (labels == nullptr) return;
  std::printf("\n%-52s %-5s", "metric", "unit");
  for (int n : agents) std::printf(" %12s", absl::StrCat("N=", n).c_str());
  std::printf("\n");
  for (size_t row = 0; row < labels->size(); ++row) {
    std::printf("%-52s %-5s", (*labels)[row].metric.c_str(), (*labels)[row].unit.c_str());
    for (const auto& run : runs) {
      const bool has = run.ok() && row < run->size();
      std::printf(" %12s", has ? (*run)[row].value.c_str() : "failed");
    }
    std::printf("\n");
  }
}

bool ParseFlags(int argc, char** argv, Options* options) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--controller") {
      options->controller = value;
    } else if (flag == "--agents") {
      options->agents.clear();
      for (absl::string_view part : absl::StrSplit(value, ',')) {
        int n = 0;
        if (!absl::SimpleAtoi(part, &n) || n <= 0) return false;
        options->agents.push_back(n);
      }
    } else if (flag == "--heartbeats-per-agent") {
      if (!absl::SimpleAtoi(value, &options->heartbeats) || options->heartbeats < 0) return false;
    } else if (flag == "--store") {
      if (value != "sqlite" && value != "postgresql") return false;
      options->postgresql = value == "postgresql";
    } else if (flag == "--events-per-agent") {
      if (!absl::SimpleAtoi(value, &options->events) || options->events <= 0) return false;
    } else {
      return false;
    }
  }
  return argc % 2 == 1;
}

// N streams need few descriptors (one per connection), but the controller inherits the limit.
void RaiseFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseFlags(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: %s [--agents 100,1000,10000] [--heartbeats-per-agent K] "
                 "[--events-per-agent E] [--controller PATH] [--store sqlite|postgresql]\n",
                 argv[0]);
    return 2;
  }
  RaiseFileLimit();
  std::unique_ptr<kvbench::testing::PostgresServer> postgres;
  if (options.postgresql) {
    kvbench::testing::PostgresServerOptions server_options;
    server_options.fsync = true;  // durable commits, as a production server runs
    auto started = kvbench::testing::PostgresServer::Start(server_options);
    if (!started.ok()) {
      std::fprintf(stderr, "%s\n", started.status().ToString().c_str());
      return 1;
    }
    postgres = *std::move(started);
  }
  std::printf(
      "controller scale: %d heartbeats/agent, %d events/agent, %zu-scenario SIM job, store %s\n",
      options.heartbeats, options.events, 3 * kConcurrency.size(),
      options.postgresql ? "PostgreSQL (fsync on)" : "SQLite");
  std::vector<absl::StatusOr<Column>> runs;
  bool failed = false;
  for (int agents : options.agents) {
    std::fprintf(stderr, "running N=%d ...\n", agents);
    runs.push_back(RunLevel(options, agents, postgres.get()));
    if (!runs.back().ok()) {
      failed = true;
      std::fprintf(stderr, "N=%d failed: %s\n", agents,
                   std::string(runs.back().status().message()).c_str());
    }
  }
  PrintTable(options.agents, runs);
  return failed ? 1 : 0;
}
