#include "tests/component/agent/scenario/scenario_harness.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "tests/support/wait_for.h"

namespace kvbench::testing {
namespace {

agent::tiers::ProfileSet LoadProfiles(std::optional<std::vector<v1::Profile>> profiles) {
  absl::StatusOr<agent::tiers::ProfileSet> set =
      profiles ? agent::tiers::ProfileSet::FromProfiles(*profiles)
               : agent::tiers::ProfileSet::LoadDir(KV_PROFILES_DIR);
  if (!set.ok()) throw std::runtime_error(std::string(set.status().message()));
  return *std::move(set);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<int> ProcPids() {
  std::vector<int> pids;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return pids;
  while (dirent* entry = ::readdir(proc)) {
    int pid = 0;
    if (absl::SimpleAtoi(entry->d_name, &pid)) pids.push_back(pid);
  }
  ::closedir(proc);
  return pids;
}

}  // namespace

ScenarioHarness::ScenarioHarness(std::optional<std::vector<v1::Profile>> profiles,
                                 std::optional<std::string> search_path)
    : profiles_(std::move(profiles)), search_path_(std::move(search_path)) {
  environments_ = NewEnvironments();
}

std::unique_ptr<agent::ScenarioEnvironmentFactory> ScenarioHarness::NewEnvironments() const {
  agent::ScenarioEnvironmentOptions options;
  options.profiles = LoadProfiles(profiles_);
  options.bin_dir = KV_BIN_DIR;
  options.search_path = search_path_;
  options.dataset_roots = {KV_DEMO_DATASETS};
  options.run_dir = run_dir();
  options.nvme_cache_dir = dir_.File("nvme");
  absl::StatusOr<std::unique_ptr<agent::ScenarioEnvironmentFactory>> environments =
      agent::ScenarioEnvironmentFactory::Create(std::move(options));
  if (!environments.ok()) throw std::runtime_error(std::string(environments.status().message()));
  return *std::move(environments);
}

v1::JobSpec ScenarioHarness::SimJob(int replicas, double time_scale) {
  v1::JobSpec job;
  job.set_name("test");
  job.set_model("meta-llama/Llama-3.1-8B-Instruct");
  job.set_build(v1::NVIDIA);
  job.set_engine(v1::SIM);
  job.set_replicas(replicas);
  job.set_tensor_parallel_size(1);
  job.mutable_dataset()->set_code("tau2-bench-v1");
  job.set_num_rounds(5);
  job.set_osl(16);
  job.set_cpu_pool_gb(8);
  job.set_nvme_pool_gb(16);
  job.mutable_engine_overrides()->set_sim_time_scale(time_scale);
  job.mutable_engine_overrides()->set_num_gpu_blocks(2048);
  return job;
}

v1::Scenario ScenarioHarness::MakeScenario(v1::Tier tier, int concurrency, int sessions) {
  v1::Scenario scenario;
  scenario.set_job_id("job");
  scenario.set_tier(tier);
  scenario.set_concurrency(concurrency);
  scenario.set_sessions(sessions);
  std::string tier_name = v1::Tier_Name(tier);
  for (char& c : tier_name) c = static_cast<char>(std::tolower(c));
  scenario.set_scenario_id(absl::StrCat("00-", tier_name, "-c", concurrency));
  scenario.set_comparison_group(absl::StrCat("c", concurrency));
  return scenario;
}

std::string ScenarioHarness::ScenarioDir(const v1::Scenario& scenario) const {
  return dir_.File(scenario.scenario_id());
}

bool ScenarioHarness::WaitForRecords(const v1::Scenario& scenario, long lines) const {
  const std::string records = ScenarioDir(scenario) + "/requests.jsonl";
  return WaitFor(
      [&] {
        std::ifstream in(records);
        return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(),
                          '\n') >= lines;
      },
      absl::Seconds(90));
}

agent::ScenarioEnvironment ScenarioHarness::Environment(const v1::Scenario& scenario) {
  return environments_->ForScenario(ScenarioDir(scenario));
}

agent::ScenarioEventSink ScenarioHarness::Sink() {
  return [this](v1::Event event) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(event));
  };
}

std::vector<v1::Event> ScenarioHarness::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

std::string ScenarioHarness::ReadLog(const v1::Scenario& scenario,
                                     const std::string& process) const {
  return ReadAll(absl::StrCat(ScenarioDir(scenario), "/logs/", process, ".log"));
}

std::vector<int> ScenarioHarness::LiveChildren() {
  std::vector<int> children;
  for (int pid : ProcPids()) {
    std::string stat = ReadAll(absl::StrCat("/proc/", pid, "/stat"));
    // pid (comm) state ppid ...: comm may hold spaces, so parse after the last ')'.
    size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::vector<std::string> fields = absl::StrSplit(stat.substr(close + 2), ' ');
    int ppid = 0;
    if (fields.size() > 1 && fields[0] != "Z" && absl::SimpleAtoi(fields[1], &ppid) &&
        ppid == ::getpid()) {
      children.push_back(pid);
    }
  }
  return children;
}

std::vector<int> ScenarioHarness::ProcessesMatching(const std::string& text) {
  std::vector<int> matching;
  for (int pid : ProcPids()) {
    std::string cmdline = ReadAll(absl::StrCat("/proc/", pid, "/cmdline"));
    for (char& c : cmdline) c = c == '\0' ? ' ' : c;
    if (pid != ::getpid() && cmdline.find(text) != std::string::npos) matching.push_back(pid);
  }
  return matching;
}

}  // namespace kvbench::testing
