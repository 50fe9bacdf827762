#include "controller/report/report_runs.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace kvbench::report {
namespace {

template <typename T>
void SortUnique(std::vector<T>* values) {
  std::sort(values->begin(), values->end());
  values->erase(std::unique(values->begin(), values->end()), values->end());
}

}  // namespace

ReportRuns::ReportRuns(const v1::Job& job) {
  for (int concurrency : job.spec().concurrency()) concurrencies_.push_back(concurrency);
  for (int tier : job.spec().tiers()) tiers_.push_back(static_cast<v1::Tier>(tier));
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    if (!status.has_result()) continue;
    ReportRun run;
    run.tier = status.scenario().tier() != v1::TIER_UNSPECIFIED ? status.scenario().tier()
                                                                : status.result().tier();
    run.concurrency = status.scenario().concurrency() != 0 ? status.scenario().concurrency()
                                                           : status.result().concurrency();
    run.agent = status.scenario().agent_id();
    run.result = &status.result();
    runs_.push_back(run);
    concurrencies_.push_back(run.concurrency);
    tiers_.push_back(run.tier);
    agents_.push_back(run.agent);
  }
  std::stable_sort(runs_.begin(), runs_.end(), [](const ReportRun& a, const ReportRun& b) {
    return std::tie(a.agent, a.concurrency, a.tier) < std::tie(b.agent, b.concurrency, b.tier);
  });
  SortUnique(&concurrencies_);
  SortUnique(&tiers_);
  SortUnique(&agents_);
}

const v1::ScenarioResult* ReportRuns::Find(v1::Tier tier, int concurrency) const {
  for (const ReportRun& run : runs_) {
    if (run.tier == tier && run.concurrency == concurrency) return run.result;
  }
  return nullptr;
}

ReportRuns ReportRuns::ForAgent(const std::string& agent) const {
  ReportRuns one;
  one.concurrencies_ = concurrencies_;
  one.tiers_ = tiers_;
  one.agents_ = {agent};
  if (several_agents()) one.title_suffix_ = absl::StrCat(", agent ", agent);
  for (const ReportRun& run : runs_) {
    if (run.agent == agent) one.runs_.push_back(run);
  }
  return one;
}

}  // namespace kvbench::report
