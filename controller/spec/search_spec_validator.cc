#include "controller/spec/search_spec_validator.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/results/metric_catalog.h"
#include "controller/spec/job_spec_validator.h"

namespace kvbench::spec {
namespace {

void CheckSloTarget(FieldErrors* errors, const std::string& field, double seconds) {
  if (!std::isfinite(seconds) || seconds <= 0 || seconds > kMaxSloSeconds) {
    errors->Add(field,
                absl::StrCat(seconds, " is out of range: must be greater than 0 and at most ",
                             kMaxSloSeconds, " s"));
  }
}

void CheckBetween(FieldErrors* errors, const std::string& field, int64_t value, int64_t min,
                  int64_t max) {
  if (value < min || value > max) {
    errors->Add(field,
                absl::StrCat(value, " is out of range: must be between ", min, " and ", max));
  }
}

// The SLO's fields are the catalog's SLO metrics (results::MetricInfo::slo_target), by key.
void CheckSlo(const v1::Slo& slo, FieldErrors* errors) {
  std::vector<std::string> keys;
  bool any = false;
  for (const results::MetricInfo& metric : results::AllMetrics()) {
    if (metric.slo_target == nullptr) continue;
    keys.push_back(metric.key);
    if (const std::optional<double> seconds = metric.slo_target(slo)) {
      any = true;
      CheckSloTarget(errors, absl::StrCat("slo.", metric.key), *seconds);
    }
  }
  if (!any) {
    errors->Add("slo", absl::StrCat("must set at least one of ", absl::StrJoin(keys, ", ")));
  }
}

}  // namespace

int SearchMaxRepeats(const v1::JobSpec& spec) {
  if (spec.concurrency_search().has_max_repeats()) return spec.concurrency_search().max_repeats();
  return std::min(kMaxRepeats, std::max(3, 2 * std::max(spec.repeats(), 1)));
}

void ValidateCapacitySearch(const v1::JobSpec& spec, FieldErrors* errors) {
  const bool has_slo = spec.has_slo();
  if (has_slo) CheckSlo(spec.slo(), errors);
  if (!HasCapacitySearch(spec)) {
    if (has_slo) {
      errors->Add("slo",
                  "is what a capacity search is measured at: give the concurrency as "
                  "{\"search\": {\"min\": 1, \"max\": 256}}");
    }
    return;
  }
  if (!has_slo) {
    errors->Add("slo", "is required by concurrency.search (e.g. {\"ttft_p95_s\": 2})");
  }
  if (!spec.concurrency().empty()) {
    errors->Add("concurrency", "give either a list of values or a search, not both");
  }
  const v1::ConcurrencySearch& search = spec.concurrency_search();
  CheckBetween(errors, "concurrency.search.min", search.min(), 1, kMaxConcurrency);
  CheckBetween(errors, "concurrency.search.max", search.max(), 1, kMaxConcurrency);
  if (search.max() < search.min()) {
    errors->Add("concurrency.search.max",
                absl::StrCat(search.max(), " is below min ", search.min()));
  }
  const int repeats = std::max(spec.repeats(), 1);
  if (search.has_max_repeats()) {
    CheckBetween(errors, "concurrency.search.max_repeats", search.max_repeats(), repeats,
                 kMaxRepeats);
  }
  if (search.has_max_probes()) {
    CheckBetween(errors, "concurrency.search.max_probes", search.max_probes(), 2, kMaxSearchProbes);
  }
  if (spec.has_sessions() && spec.sessions() < search.max()) {
    errors->Add("sessions",
                absl::StrCat(spec.sessions(), " is below concurrency.search.max ", search.max(),
                             ": that many users cannot keep every slot busy"));
  }
  if (spec.placement().fan_out() == v1::FAN_OUT_EACH) {
    errors->Add("placement.fan_out",
                "FAN_OUT_EACH cannot run a concurrency search yet: search on each node with "
                "its own job (agent_labels)");
  }
}

}  // namespace kvbench::spec
