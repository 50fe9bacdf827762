#pragma once

// The tier comparison: per comparison group (one concurrency), the tiers side by side
// with the GPU tier as the baseline and each offload tier's delta against it. Pure.

#include <optional>
#include <string>
#include <vector>

#include "controller/results/metric_info.h"
#include "controller/results/scenario_run.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// A 95% interval on a delta, in the delta's unit (% or pp).
struct DeltaInterval {
  double low = 0;
  double high = 0;
  // The interval holds 0: the data do not tell the tiers apart ("no clear difference").
  bool ContainsZero() const { return low <= 0 && high >= 0; }
};

// How a delta against the baseline is expressed: relative change in % for amounts (times,
// rates, counts), difference in percentage points for metrics that are themselves percentages.
using DeltaKind = ChangeKind;

struct ComparisonRow {
  std::string key;     // the metric's in the catalog (metric_catalog.h): "ttft_p95_s"
  std::string metric;  // "TTFT p95"
  std::string unit;    // "ms", "%", "req/s", "tok/s", "users"
  DeltaKind delta_kind = DeltaKind::kRelativePct;
  bool higher_is_better = false;
  std::vector<std::optional<double>> values;  // one per column, in the row's unit; null = none
  std::vector<std::optional<double>> deltas;  // vs the baseline; null for it and where unknown
  // The delta's interval (regression::AttachDeltaIntervals), per column; null where none was
  // computed (the baseline, a row not measured per request, no request rows).
  std::vector<std::optional<DeltaInterval>> intervals;
};

// One tier of a group: its scenarios, one per repeat (JobSpec.repeats), pooled.
struct ComparisonColumn {
  v1::Tier tier = v1::TIER_UNSPECIFIED;
  std::vector<std::string> scenario_ids;  // in repeat order
  int succeeded = 0;                      // scenarios with a result; 0: its values are all null
};

struct ComparisonGroup {
  std::string comparison_group;
  int32_t concurrency = 0;
  std::vector<ComparisonColumn> columns;  // one per tier: GPU first, then CPU_RAM, NVME
  int baseline = -1;                      // index of the GPU column; -1 when there is none
  std::vector<ComparisonRow> rows;
  std::optional<v1::Validity> validity;  // the group's verdict, when one was given
  // "times in simulated seconds (...)" when the results are simulated: the time and per-second
  // rows are then simulated_latency's (simulated_time_display.h); "" otherwise.
  std::string time_note;
  // The most repeats any tier has (1 for a job without repeats).
  int repeats = 1;
  // What the intervals cover, e.g. that one repeat cannot show the run-to-run spread; "" before
  // regression::AttachDeltaIntervals.
  std::string interval_note;
  // "KV cache usage means rest on few scrapes: GPU 3, CPU_RAM 2 ..." when a tier's run had fewer
  // than kFewScrapes in-replay scrapes (few_scrapes.h); "" otherwise.
  std::string scrape_note;
  // Where the numbers are thin or mixed: a small sample, hit rates computed two ways, a rate
  // window longer than the replay (comparison_caveats.h); empty when none.
  std::vector<std::string> caveats;
};

// Groups by comparison_group (ordered by concurrency) and fills a row per compared metric of the
// catalog (metric_catalog.h), in its order: TTFT, TPOT, throughput, TTFT degradation, prefix-cache
// hit rates, KV cache usage (in-replay scrapes), LMCache lookup hit rate, what offload served,
// achieved sessions.
// Latency rows come from results::ShownLatency: simulated seconds for a simulated engine.
// A tier's repeats are pooled: each value is the mean over its succeeded repeats (exact for one);
// regression::AttachDeltaIntervals then replaces the rows measured per request by their pooled
// values and bootstrap deltas with intervals.
std::vector<ComparisonGroup> BuildComparison(const std::vector<ScenarioRun>& runs,
                                             const std::vector<v1::Validity>& validity);

}  // namespace kvbench::results
