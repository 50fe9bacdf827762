#include "agent/work_dir_layout.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace kvbench::agent {
namespace {

std::string WithoutTrailingSlash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

std::string AttemptDirName(const std::string& scenario_id, int attempt) {
  if (attempt <= 1) return scenario_id;
  return absl::StrCat(scenario_id, ".attempt-", attempt);
}

WorkDirLayout WorkDirLayout::ForWorkDir(const std::string& work_dir) {
  WorkDirLayout layout;
  layout.root_ = WithoutTrailingSlash(work_dir);
  layout.owner_ = "kv-agent";
  layout.root_label_ = "work_dir";
  layout.scenarios_dir_ = absl::StrCat(layout.root_, "/scenarios");
  layout.run_dir_ = absl::StrCat(layout.root_, "/run");
  layout.spool_dir_ = absl::StrCat(layout.root_, "/spool");
  return layout;
}

WorkDirLayout WorkDirLayout::ForLocalRun(const std::string& out_dir, const std::string& job_id) {
  WorkDirLayout layout;
  layout.scenarios_dir_ = WithoutTrailingSlash(out_dir);
  layout.root_ = absl::StrCat(layout.scenarios_dir_, "/.run");
  layout.owner_ = "kvctl run";
  layout.run_dir_ = layout.root_;
  layout.spool_dir_ = absl::StrCat(layout.root_, "/", job_id, ".spool");
  return layout;
}

std::string WorkDirLayout::ScenarioDir(const std::string& job_id, const std::string& scenario_id,
                                       int attempt) const {
  return absl::StrCat(scenarios_dir_, "/", job_id, "/", AttemptDirName(scenario_id, attempt));
}

std::string WorkDirLayout::ScenarioLogDir(const std::string& job_id, const std::string& scenario_id,
                                          int attempt) const {
  return absl::StrCat(ScenarioDir(job_id, scenario_id, attempt), "/logs");
}

absl::Status WorkDirLayout::EnsureCreated() const {
  for (const std::string& dir : {root_, scenarios_dir_, run_dir_, spool_dir_}) {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create work dir ", dir, ": ", error.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace kvbench::agent
