#include "controller/regression/version_change.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/lifecycle/lifecycle.h"
#include "controller/regression/job_diff.h"

namespace kvbench::regression {
namespace {

constexpr char kKvbenchComponent[] = "kvbench";
constexpr char kUnknownVersion[] = "unknown";

// The releases of `job`'s succeeded scenarios of the point's series.
ReleaseSet SeriesReleases(const v1::Job& job, const v1::ChangePoint& point) {
  ReleaseSet releases;
  for (const v1::ScenarioStatus& status : job.scenarios()) {
    if (!SucceededWithResult(status)) continue;
    if (status.scenario().tier() != point.tier() ||
        status.scenario().concurrency() != point.concurrency() ||
        AgentClassOf(status) != point.agent()) {
      continue;
    }
    AddReleases(status.result(), &releases);
  }
  return releases;
}

}  // namespace

void AddReleases(const v1::ScenarioResult& result, ReleaseSet* releases) {
  for (const v1::ComponentVersion& version : result.versions()) {
    if (version.component() == kKvbenchComponent || version.version() == kUnknownVersion) continue;
    (*releases)[version.component()].insert(version.version());
  }
}

std::string VersionChangeText(const ReleaseSet& before, const ReleaseSet& after) {
  std::vector<std::string> changes;
  for (const auto& [component, versions] : after) {
    const auto old = before.find(component);
    if (old == before.end() || old->second == versions) continue;
    changes.push_back(absl::StrCat(component, " ", absl::StrJoin(old->second, "/"), " → ",
                                   absl::StrJoin(versions, "/")));
  }
  return absl::StrJoin(changes, "; ");
}

std::string ChangePointVersionChange(const std::vector<const v1::Job*>& runs,
                                     const v1::ChangePoint& point) {
  for (size_t i = 1; i < runs.size(); ++i) {
    if (runs[i]->job_id() != point.job_id()) continue;
    return VersionChangeText(SeriesReleases(*runs[i - 1], point), SeriesReleases(*runs[i], point));
  }
  return "";
}

}  // namespace kvbench::regression
