#pragma once

// The capacity search's fields of a job spec: `slo` and
// `"concurrency": {"search": {...}}` (stored as concurrency_search).

#include "common/json/proto_json.h"
#include "kvbench/v1/job.pb.h"

namespace kvbench::spec {

// The most concurrency a search may reach, and the most concurrencies it may probe per tier.
inline constexpr int kMaxSearchProbes = 32;
inline constexpr int kDefaultSearchProbes = 16;
// An SLO target's bound, in seconds.
inline constexpr double kMaxSloSeconds = 3600;

// Whether the spec searches for capacity instead of running a fixed concurrency list.
inline bool HasCapacitySearch(const v1::JobSpec& spec) { return spec.has_concurrency_search(); }

// The repeats an undecided probe is re-run up to: the spec's, else max(3, 2 x repeats) (<= 20).
int SearchMaxRepeats(const v1::JobSpec& spec);

// Errors name the fields as a spec writes them: "concurrency.search.min", "slo.ttft_p95_s".
void ValidateCapacitySearch(const v1::JobSpec& spec, FieldErrors* errors);

}  // namespace kvbench::spec
