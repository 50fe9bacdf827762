#include "tests/cluster/cluster_harness.h"

#include <grpcpp/grpcpp.h>

#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "tests/support/sim_job_spec.h"
#include "tests/support/unused_port.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {

v1::JobSpec SimJob(const std::string& name, std::vector<v1::Tier> tiers,
                   std::vector<int> concurrency) {
  return testing::SimJobSpec(name, tiers, concurrency);
}

ClusterHarness::ClusterHarness(absl::Duration heartbeat_timeout, int max_scenario_attempts)
    : data_dir_(dir_.path() + "/controller"),
      heartbeat_timeout_(heartbeat_timeout),
      max_scenario_attempts_(max_scenario_attempts),
      port_(UnusedLoopbackPort()) {
  REQUIRE(port_ > 0);
  agent_loop_thread_ = std::thread([this] { agent_loop_.Run(); });
  StartController();
}

ClusterHarness::~ClusterHarness() {
  for (auto& [id, agent] : agents_) {
    if (agent->link != nullptr) agent->link->Stop();
    agent->runner.reset();
  }
  agent_loop_.Stop();
  agent_loop_thread_.join();
  StopController();
}

void ClusterHarness::StartController() {
  v1::ControllerConfig config;
  config.set_listen_address(absl::StrCat("127.0.0.1:", port_));
  config.set_data_dir(data_dir_);
  config.set_insecure(true);
  config.set_heartbeat_timeout_s(absl::ToDoubleSeconds(heartbeat_timeout_));
  config.set_max_scenario_attempts(max_scenario_attempts_);
  loop_ = std::make_unique<EventLoop>("controller");
  absl::StatusOr<std::unique_ptr<controller::Controller>> created =
      controller::Controller::Create(config, &clock_, loop_.get(), &registry_);
  INFO(created.status().ToString());
  REQUIRE(created.ok());
  controller_ = *std::move(created);
  absl::Status started = controller_->Start();
  INFO(started.ToString());
  REQUIRE(started.ok());
  loop_thread_ = std::thread([this] { loop_->Run(); });
  stub_ = v1::Controller::NewStub(
      grpc::CreateChannel(controller_->address(), grpc::InsecureChannelCredentials()));
}

void ClusterHarness::StopController() {
  if (controller_ == nullptr) return;
  controller::Controller* controller = controller_.get();
  EventLoop* loop = loop_.get();
  loop_->Post("test.stop", [controller, loop] { controller->Shutdown([loop] { loop->Stop(); }); });
  loop_thread_.join();
  controller_.reset();
  loop_.reset();
}

ClusterHarness::Agent& ClusterHarness::AddAgent(const std::string& id, bool nvme) {
  auto agent = std::make_unique<Agent>();
  agent->id = id;
  absl::StatusOr<std::unique_ptr<TcpProxy>> proxy = TcpProxy::Create(port_);
  REQUIRE(proxy.ok());
  agent->proxy = *std::move(proxy);
  agent->spool_dir = absl::StrCat(dir_.path(), "/", id, "/spool");
  absl::StatusOr<std::unique_ptr<agent::EventSpool>> spool =
      agent::EventSpool::Open(agent->spool_dir);
  INFO(spool.status().ToString());
  REQUIRE(spool.ok());
  agent->spool = *std::move(spool);
  agent->runner = std::make_unique<FakeScenarioWorker>();
  v1::AgentCapabilities capabilities;
  capabilities.set_agent_id(id);
  capabilities.set_hostname(id);
  capabilities.add_profiles("sim-vllm");
  capabilities.add_profiles("sim-lmcache");
  capabilities.set_cpu_memory_bytes(64LL << 30);
  if (nvme) {
    capabilities.set_nvme_cache_path(absl::StrCat(dir_.path(), "/", id, "/nvme"));
    capabilities.set_nvme_free_bytes(1LL << 40);
  }
  agent::ControllerLinkOptions options;
  options.agent_id = id;
  options.controller_address = absl::StrCat("127.0.0.1:", agent->proxy->port());
  options.insecure = true;
  options.backoff_initial = absl::Milliseconds(20);
  options.backoff_max = absl::Milliseconds(200);
  absl::StatusOr<std::unique_ptr<agent::ControllerLink>> link = agent::ControllerLink::Create(
      options, capabilities, agent->spool.get(), agent->runner.get(), &clock_, &agent_loop_);
  REQUIRE(link.ok());
  agent->link = *std::move(link);
  agent->link->Start();
  Agent& added = *agent;
  agents_[id] = std::move(agent);
  REQUIRE(WaitFor([&] { return added.link->connected(); }));
  return added;
}

void ClusterHarness::KillAgent(const std::string& id) {
  Agent& killed = *agents_.at(id);
  killed.proxy->SetRefusing(true);
  killed.proxy->CutAll();
  killed.link->Stop();
  killed.runner.reset();
  killed.link.reset();
}

std::string ClusterHarness::Submit(const v1::JobSpec& spec) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  v1::SubmitJobResponse response;
  grpc::Status status = stub_->SubmitJob(&context, request, &response);
  INFO(status.error_message());
  REQUIRE(status.ok());
  return response.job_id();
}

v1::Job ClusterHarness::GetJob(const std::string& job_id) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  v1::Job job;
  grpc::Status status = stub_->GetJob(&context, request, &job);
  INFO(status.error_message());
  REQUIRE(status.ok());
  return job;
}

v1::Job ClusterHarness::WaitForJob(const std::string& job_id, v1::JobState state,
                                   absl::Duration timeout) {
  v1::Job job;
  WaitFor(
      [&] {
        job = GetJob(job_id);
        return job.state() == state || job.state() == v1::JOB_STATE_SUCCEEDED ||
               job.state() == v1::JOB_STATE_FAILED || job.state() == v1::JOB_STATE_CANCELLED;
      },
      timeout);
  return job;
}

}  // namespace kvbench::testing
