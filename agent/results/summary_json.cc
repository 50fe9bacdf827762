#include "agent/results/summary_json.h"

namespace kvbench::agent::results {
namespace {

using Json = nlohmann::json;

Json OrNull(bool has, double value) { return has ? Json(value) : Json(nullptr); }

Json RoundsJson(const v1::LatencyMetrics& latency) {
  Json rounds = Json::array();
  for (const v1::RoundLatency& round : latency.ttft_by_round()) {
    rounds.push_back({
        {"round", round.round()},
        {"count", round.count()},
        {"p50_s", OrNull(round.has_ttft_p50_s(), round.ttft_p50_s())},
        {"p95_s", OrNull(round.has_ttft_p95_s(), round.ttft_p95_s())},
        {"mean_s", OrNull(round.has_ttft_mean_s(), round.ttft_mean_s())},
    });
  }
  return rounds;
}

}  // namespace

Json SummaryJson(const v1::LatencyMetrics& latency, const v1::SessionCounts& sessions) {
  Json out = Json::object();
#define KV_SUMMARY_OPTIONAL_(field) out[#field] = OrNull(latency.has_##field(), latency.field())
  KV_SUMMARY_OPTIONAL_(ttft_mean_s);
  KV_SUMMARY_OPTIONAL_(ttft_p50_s);
  KV_SUMMARY_OPTIONAL_(ttft_p90_s);
  KV_SUMMARY_OPTIONAL_(ttft_p95_s);
  KV_SUMMARY_OPTIONAL_(ttft_p99_s);
  KV_SUMMARY_OPTIONAL_(tpot_mean_s);
  KV_SUMMARY_OPTIONAL_(input_tokens_per_s);
  KV_SUMMARY_OPTIONAL_(output_tokens_per_s);
  KV_SUMMARY_OPTIONAL_(requests_per_s);
  KV_SUMMARY_OPTIONAL_(ttft_degradation_median_pct);
  KV_SUMMARY_OPTIONAL_(ttft_degradation_p95_pct);
  KV_SUMMARY_OPTIONAL_(reuse_same_user_pct);
  KV_SUMMARY_OPTIONAL_(reuse_any_user_pct);
  KV_SUMMARY_OPTIONAL_(dispatch_lag_p99_s);
#undef KV_SUMMARY_OPTIONAL_
  out["duration_s"] = latency.duration_s();
  out["requests_completed"] = latency.requests_completed();
  out["sessions_requested"] = sessions.requested();
  out["sessions_achieved"] = sessions.achieved();
  out["sessions_dataset_ceiling"] = sessions.dataset_ceiling();
  out["sessions_total"] = sessions.total();
  out["sessions_complete"] = sessions.complete();
  out["sessions_incomplete"] = sessions.incomplete();
  out["sessions_error"] = sessions.error();
  out["sessions_not_started"] = sessions.not_started();
  out["sessions_truncated_by_isl"] = sessions.truncated_by_isl();
  out["prompt_tokens_total"] = latency.prompt_tokens_total();
  out["output_tokens_total"] = latency.output_tokens_total();
  out["cached_tokens_total"] =
      latency.has_cached_tokens_total() ? Json(latency.cached_tokens_total()) : Json(nullptr);
  out["failed_requests"] = sessions.failed_requests();
  out["first_error"] =
      sessions.first_error().empty() ? Json(nullptr) : Json(sessions.first_error());
  out["ttft_by_round"] = RoundsJson(latency);
  return out;
}

}  // namespace kvbench::agent::results
