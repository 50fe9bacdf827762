#include "controller/search/capacity_evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/lifecycle/lifecycle.h"
#include "controller/regression/bootstrap_value.h"
#include "controller/regression/regression_metric.h"
#include "controller/regression/run_sample.h"
#include "controller/results/offload_evidence.h"
#include "controller/search/capacity_search.h"
#include "controller/spec/scenario_expander.h"
#include "controller/spec/search_spec_validator.h"

namespace kvbench::search {
namespace {

using regression::RegressionMetric;

struct Target {
  RegressionMetric metric;
  double seconds;
};

// The SLO's targets, in the order diffs list their metrics (an SLO metric is a judged one: the
// bootstrap of its intervals is the regression statistics').
std::vector<Target> TargetsOf(const v1::Slo& slo) {
  std::vector<Target> targets;
  for (const regression::RegressionMetricInfo& info : regression::AllRegressionMetrics()) {
    if (info.slo_target == nullptr) continue;
    if (const std::optional<double> seconds = info.slo_target(slo)) {
      targets.push_back({info.metric, *seconds});
    }
  }
  return targets;
}

SearchBounds BoundsOf(const v1::JobSpec& spec) {
  const v1::ConcurrencySearch& search = spec.concurrency_search();
  SearchBounds bounds;
  bounds.min = std::max(search.min(), 1);
  bounds.max = std::max(search.max(), bounds.min);
  bounds.repeats = std::max(spec.repeats(), 1);
  bounds.max_repeats = std::max(spec::SearchMaxRepeats(spec), bounds.repeats);
  bounds.max_probes = search.has_max_probes() ? search.max_probes() : spec::kDefaultSearchProbes;
  bounds.resolution_pct = kSearchResolutionPct;
  return bounds;
}

// "2 s", "450 ms".
std::string SecondsText(double seconds) {
  if (seconds < 1) return absl::StrFormat("%.4g ms", seconds * 1e3);
  return absl::StrFormat("%.4g s", seconds);
}

// The SLO's checks at one probe, each measure recorded in `probe`.
std::vector<SloCheck> MeasureProbe(const std::vector<regression::RunSample>& samples,
                                   const std::vector<Target>& targets, uint64_t stream,
                                   v1::CapacityProbe* probe) {
  const std::vector<regression::MetricInterval> intervals =
      regression::BootstrapValues(samples, regression::DiffOptions{}, stream);
  std::vector<SloCheck> checks;
  for (const Target& target : targets) {
    const regression::MetricInterval& interval = intervals[static_cast<size_t>(target.metric)];
    v1::SloMeasure* measure = probe->add_measures();
    measure->set_metric(regression::InfoOf(target.metric).key);
    measure->set_target_s(target.seconds);
    if (interval.value.has_value()) measure->set_value_s(*interval.value);
    SloCheck check;
    check.target = target.seconds;
    if (interval.low.has_value() && interval.high.has_value()) {
      measure->set_low_s(*interval.low);
      measure->set_high_s(*interval.high);
      check.low = *interval.low;
      check.high = *interval.high;
    } else {
      // Without an interval the probe can be neither met nor missed: it gets more repeats.
      measure->set_note(interval.note);
      check.low = -std::numeric_limits<double>::infinity();
      check.high = std::numeric_limits<double>::infinity();
    }
    checks.push_back(check);
  }
  return checks;
}

struct TierEvaluation {
  v1::TierCapacity capacity;
  std::optional<PlannedProbe> next;
  bool running = false;
};

TierEvaluation EvaluateTier(const v1::JobSpec& spec, v1::Tier tier,
                            const std::vector<results::ScenarioRun>& runs,
                            const std::map<std::string, std::vector<v1::RequestRow>>& rows) {
  TierEvaluation evaluation;
  v1::TierCapacity& capacity = evaluation.capacity;
  capacity.set_tier(tier);
  std::map<int, std::vector<const results::ScenarioRun*>> by_concurrency;
  for (const results::ScenarioRun& run : runs) {
    if (run.scenario.tier() == tier) by_concurrency[run.scenario.concurrency()].push_back(&run);
  }
  const std::vector<Target> targets = TargetsOf(spec.slo());
  std::vector<Probe> probes;
  std::map<int, int> last_repeat;
  for (const auto& [concurrency, cell] : by_concurrency) {
    v1::CapacityProbe* probe = capacity.add_probes();
    probe->set_concurrency(concurrency);
    int ended = 0;
    bool cell_running = false;
    std::vector<regression::RunSample> samples;
    for (const results::ScenarioRun* run : cell) {
      const std::string& id = run->scenario.scenario_id();
      probe->add_scenario_ids(id);
      last_repeat[concurrency] = std::max(last_repeat[concurrency], run->scenario.repeat());
      if (!IsScenarioEnded(run->state)) {
        cell_running = true;
        continue;
      }
      ++ended;
      const auto found = rows.find(id);
      if (run->state != v1::SCENARIO_STATE_SUCCEEDED || !run->result.has_value() ||
          found == rows.end()) {
        continue;
      }
      const double scale = run->result->has_sim_time_scale() && run->result->sim_time_scale() > 0
                               ? run->result->sim_time_scale()
                               : 1;
      samples.push_back(regression::GroupByUser(id, found->second, scale));
    }
    probe->set_repeats(static_cast<int>(samples.size()));
    if (cell_running) {
      evaluation.running = true;
      probe->set_outcome("running");
      continue;
    }
    ProbeOutcome outcome = ProbeOutcome::kUndecided;
    if (!samples.empty()) {
      const uint64_t stream =
          regression::StableHash(absl::StrCat("capacity/", v1::Tier_Name(tier), "/c", concurrency));
      outcome = JudgeProbe(MeasureProbe(samples, targets, stream, probe));
    }
    probe->set_outcome(ProbeOutcomeName(outcome));
    probes.push_back({concurrency, ended, outcome});
  }
  if (evaluation.running) {
    capacity.set_reason("a probe is running");
    return evaluation;
  }
  const SearchStep step = NextStep(BoundsOf(spec), probes);
  if (step.kind == SearchStep::Kind::kDone) {
    capacity.set_finished(true);
    if (step.capacity.has_value()) capacity.set_capacity(*step.capacity);
    capacity.set_low(step.low);
    capacity.set_high(step.high);
    capacity.set_at_max(step.at_max);
    capacity.set_reason(step.reason);
    return evaluation;
  }
  PlannedProbe next;
  next.tier = tier;
  next.concurrency = step.concurrency;
  next.first_repeat = last_repeat[step.concurrency] + 1;
  next.repeats = step.repeats;
  evaluation.next = next;
  capacity.set_reason(step.kind == SearchStep::Kind::kMore
                          ? absl::StrCat("undecided at ", step.concurrency, ": ", step.repeats,
                                         " more repeats next")
                          : absl::StrCat("next probe: ", step.concurrency, " users"));
  return evaluation;
}

// "GPU 12 users [12, 13]", "CPU_RAM 20 users [20, 21] (+67% [+54%, +75%])", "NVME ≥ 24 users
// (met at the search's max) (+100%)", "GPU none (missed the SLO at the search's min)", "GPU
// searching".
std::string TierHeadline(const v1::TierCapacity& tier) {
  const std::string name = v1::Tier_Name(tier.tier());
  if (!tier.finished()) return absl::StrCat(name, " searching");
  if (!tier.has_capacity()) {
    return absl::StrCat(name, " none (missed the SLO at the search's min)");
  }
  const int users = tier.capacity();
  std::string text;
  if (tier.at_max() && users == tier.high()) {
    text = absl::StrCat(name, " ≥ ", users, " users (met at the search's max)");
  } else {
    text = absl::StrCat(name, " ", users, users == 1 ? " user" : " users", " [", tier.low(), ", ",
                        tier.high(), "]");
  }
  if (tier.has_vs_gpu_low_pct() && tier.has_vs_gpu_high_pct()) {
    absl::StrAppend(&text, absl::StrFormat(" (%+.0f%% [%+.0f%%, %+.0f%%])", tier.vs_gpu_pct(),
                                           tier.vs_gpu_low_pct(), tier.vs_gpu_high_pct()));
  } else if (tier.has_vs_gpu_pct()) {
    absl::StrAppend(&text, absl::StrFormat(" (%+.0f%%)", tier.vs_gpu_pct()));
  }
  return text;
}

// Whether the GPU tier never ran short of KV cache at its capacity, from its own scrapes.
std::string OffloadNote(const v1::TierCapacity& gpu,
                        const std::vector<results::ScenarioRun>& runs) {
  if (!gpu.finished() || !gpu.has_capacity()) return "";
  std::vector<std::string> facts;
  int judged = 0;
  for (const results::ScenarioRun& run : runs) {
    if (run.scenario.tier() != v1::GPU || run.scenario.concurrency() != gpu.capacity() ||
        !run.result.has_value()) {
      continue;
    }
    const results::GpuPressure pressure = results::AssessGpuPressure(run);
    if (pressure.finding != results::GpuPressure::Finding::kNeverRanShort) return "";
    ++judged;
    if (facts.empty() && !pressure.facts.empty()) facts.push_back(pressure.facts.front());
  }
  if (judged == 0) return "";
  return absl::StrCat("offload was not exercised at the GPU tier's capacity: at ", gpu.capacity(),
                      " users the GPU tier never ran short of KV cache",
                      facts.empty() ? "" : absl::StrCat(" (", facts.front(), ")"),
                      ", so its capacity was set by something else and the offload tiers' "
                      "capacities say nothing about offload");
}

}  // namespace

std::string SloText(const v1::Slo& slo) {
  std::vector<std::string> parts;
  for (const Target& target : TargetsOf(slo)) {
    parts.push_back(
        absl::StrCat(regression::InfoOf(target.metric).label, " ≤ ", SecondsText(target.seconds)));
  }
  return absl::StrJoin(parts, ", ");
}

CapacityEvaluation EvaluateCapacity(
    const v1::JobSpec& spec, const std::vector<results::ScenarioRun>& runs,
    const std::map<std::string, std::vector<v1::RequestRow>>& rows) {
  CapacityEvaluation evaluation;
  v1::CapacityReport& report = evaluation.report;
  report.set_slo(SloText(spec.slo()));
  bool finished = true;
  for (v1::Tier tier : spec::CanonicalTiers(spec)) {
    TierEvaluation tier_evaluation = EvaluateTier(spec, tier, runs, rows);
    evaluation.running = evaluation.running || tier_evaluation.running;
    finished = finished && tier_evaluation.capacity.finished();
    if (tier_evaluation.next.has_value()) evaluation.next.push_back(*tier_evaluation.next);
    *report.add_tiers() = std::move(tier_evaluation.capacity);
  }
  // While one probe runs, the others wait for it: a round's probes run together, interleaved.
  if (evaluation.running) evaluation.next.clear();
  report.set_finished(finished);
  const v1::TierCapacity* gpu = nullptr;
  for (const v1::TierCapacity& tier : report.tiers()) {
    if (tier.tier() == v1::GPU) gpu = &tier;
  }
  if (gpu != nullptr && gpu->finished() && gpu->has_capacity() && gpu->capacity() > 0) {
    for (v1::TierCapacity& tier : *report.mutable_tiers()) {
      if (tier.tier() == v1::GPU || !tier.finished() || !tier.has_capacity()) continue;
      tier.set_vs_gpu_pct(100.0 * (tier.capacity() - gpu->capacity()) / gpu->capacity());
      if (gpu->low() > 0 && gpu->high() > 0 && !gpu->at_max() && !tier.at_max()) {
        tier.set_vs_gpu_low_pct(100.0 * (static_cast<double>(tier.low()) / gpu->high() - 1));
        tier.set_vs_gpu_high_pct(100.0 * (static_cast<double>(tier.high()) / gpu->low() - 1));
      }
    }
  }
  std::vector<std::string> parts;
  for (const v1::TierCapacity& tier : report.tiers()) parts.push_back(TierHeadline(tier));
  report.set_headline(absl::StrCat("At ", report.slo(), ": ", absl::StrJoin(parts, ", ")));
  if (gpu != nullptr) report.set_offload_note(OffloadNote(*gpu, runs));
  return evaluation;
}

}  // namespace kvbench::search
