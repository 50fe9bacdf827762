#include "controller/results/offload_evidence.h"

#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "controller/results/validity_text.h"
#include "controller/spec/job_spec_defaults.h"

namespace kvbench::results {
namespace {

using Finding = GpuPressure::Finding;

// The GPU tier's own prefix-cache hits against the reuse there was to get.
struct ReuseComparison {
  int64_t served = 0;
  int64_t reusable = 0;
  const char* what = "";
};

// Per request (exact): each request's cached tokens, capped at the prefix the same user's earlier
// rounds computed, against that prefix. Else in aggregate: all cached tokens (the responses'
// cached_tokens, else the prefix-cache hit counter) against the workload's reuse opportunity
// (any user's, else the same user's, share x prompt tokens): 256-token chunks, so a GPU tier
// that evicted nothing may exceed 100% (its 16-token blocks serve a chunk's remainder too).
std::optional<ReuseComparison> CompareReuse(const v1::LatencyMetrics& latency,
                                            const v1::EngineMetrics& engine) {
  if (latency.has_same_user_reusable_cached_tokens() && latency.same_user_reusable_tokens() > 0) {
    return ReuseComparison{latency.same_user_reusable_cached_tokens(),
                           latency.same_user_reusable_tokens(),
                           "prompt tokens its users' earlier rounds had computed"};
  }
  std::optional<int64_t> hits;
  if (latency.has_cached_tokens_total()) {
    hits = latency.cached_tokens_total();
  } else if (engine.has_prefix_cache_hit_tokens()) {
    hits = engine.prefix_cache_hit_tokens();
  }
  std::optional<double> pct;
  if (latency.has_reuse_any_user_pct()) {
    pct = latency.reuse_any_user_pct();
  } else if (latency.has_reuse_same_user_pct()) {
    pct = latency.reuse_same_user_pct();
  }
  if (!hits || !pct || latency.prompt_tokens_total() <= 0) return std::nullopt;
  const auto reusable =
      static_cast<int64_t>(*pct / 100.0 * static_cast<double>(latency.prompt_tokens_total()));
  if (reusable <= 0) return std::nullopt;
  return ReuseComparison{*hits, reusable, "reusable prompt tokens"};
}

// "working set peak 22,803 tokens vs the GPU tier's KV capacity of 2 replicas x ...": set when
// both are reported; `exceeds` tells which way.
std::optional<std::string> WorkingSetFact(const ScenarioRun& gpu, bool* exceeds) {
  const v1::ScenarioResult& result = *gpu.result;
  const v1::EngineMetrics& engine = result.engine();
  if (!result.has_peak_concurrent_tokens() || !engine.has_num_gpu_blocks() ||
      !engine.has_block_size() || engine.block_size() <= 0) {
    return std::nullopt;
  }
  const int replicas = gpu.spec.has_replicas() ? gpu.spec.replicas() : spec::kDefaultReplicas;
  const int64_t capacity = int64_t{replicas} * engine.num_gpu_blocks() * engine.block_size();
  *exceeds = result.peak_concurrent_tokens() > capacity;
  return absl::StrCat("working set peak ", WithCommas(result.peak_concurrent_tokens()), " tokens ",
                      *exceeds ? "exceeds" : "fits", " its KV capacity of ", replicas,
                      replicas == 1 ? " replica x " : " replicas x ",
                      WithCommas(engine.num_gpu_blocks()), " blocks x ", engine.block_size(),
                      " tokens = ", WithCommas(capacity), " tokens");
}

}  // namespace

GpuPressure AssessGpuPressure(const ScenarioRun& gpu) {
  GpuPressure pressure;
  const v1::ScenarioResult& result = *gpu.result;
  const v1::EngineMetrics& engine = result.engine();
  std::vector<std::string> short_facts;
  std::vector<std::string> ample_facts;
  if (engine.has_num_preemptions()) {
    const std::string fact = absl::StrCat(WithCommas(engine.num_preemptions()), " preemptions");
    (engine.num_preemptions() > 0 ? short_facts : ample_facts).push_back(fact);
  }
  std::optional<bool> achieved;  // the reuse comparison, when it can be made
  if (std::optional<ReuseComparison> reuse = CompareReuse(result.latency(), engine)) {
    const double share = static_cast<double>(reuse->served) / static_cast<double>(reuse->reusable);
    achieved = share >= kGpuReuseAchievedShare;
    // Achieved reuse is what shows the GPU never ran short: it leads the ample facts.
    auto& facts = *achieved ? ample_facts : short_facts;
    facts.insert(
        *achieved ? facts.begin() : facts.end(),
        absl::StrCat("its own prefix cache served ", Percent(share), " of the ", reuse->what, " (",
                     WithCommas(reuse->served), " of ", WithCommas(reuse->reusable), ")"));
  }
  // A usage peak is one scrape of one replica (a transient fill between two frees reads 98% while
  // the cache served every reusable block): it decides only without the reuse comparison.
  std::optional<std::string> usage_peak;
  const bool usage_full =
      engine.has_kv_cache_usage_max() && engine.kv_cache_usage_max() >= kGpuKvUsageFull;
  if (engine.has_kv_cache_usage_max()) {
    usage_peak = absl::StrCat("KV cache usage peaked at ", Percent(engine.kv_cache_usage_max()));
    if (!achieved) (usage_full ? short_facts : ample_facts).push_back(*usage_peak);
  }
  bool exceeds = false;
  const std::optional<std::string> working_set = WorkingSetFact(gpu, &exceeds);
  // The working set is an estimate: it decides only without the reuse comparison.
  if (working_set && !achieved) (exceeds ? short_facts : ample_facts).push_back(*working_set);

  const bool measured_short = (engine.num_preemptions() > 0) || (achieved && !*achieved) ||
                              (!achieved && usage_full) || (!achieved && working_set && exceeds);
  if (measured_short) {
    pressure.finding = Finding::kRanShort;
  } else if (achieved || working_set) {
    pressure.finding = Finding::kNeverRanShort;
  }
  // The deciding evidence first, then the rest.
  const bool short_first = pressure.finding == Finding::kRanShort;
  pressure.facts = short_first ? short_facts : ample_facts;
  const std::vector<std::string>& rest = short_first ? ample_facts : short_facts;
  pressure.facts.insert(pressure.facts.end(), rest.begin(), rest.end());
  // Measured, but not deciding beside the reuse comparison.
  if (usage_peak && achieved) pressure.facts.push_back(*usage_peak + " (one scrape: not deciding)");
  if (working_set && achieved) pressure.facts.push_back(*working_set);
  return pressure;
}

OffloadService AssessOffloadService(const std::vector<const ScenarioRun*>& with_results) {
  OffloadService service;
  for (const ScenarioRun* run : with_results) {
    if (run->scenario.tier() == v1::GPU) continue;
    const v1::EngineMetrics& engine = run->result->engine();
    const std::string tier = TierName(run->scenario.tier());
    std::string chunks;
    if (run->result->lmcache().has_chunks_loaded()) {
      chunks = absl::StrCat(WithCommas(run->result->lmcache().chunks_loaded()),
                            " LMCache chunks loaded");
    }
    if (engine.has_external_hit_tokens()) {
      if (engine.external_hit_tokens() > 0) {
        service.served.push_back(
            absl::StrCat(tier, " served ", WithCommas(engine.external_hit_tokens()),
                         " prompt tokens", chunks.empty() ? "" : " (" + chunks + ")"));
      } else {
        service.idle.push_back(
            absl::StrCat(tier, " 0 external-hit tokens", chunks.empty() ? "" : ", " + chunks));
      }
    } else if (engine.has_external_hit_rate() && engine.external_hit_rate() > 0) {
      service.served.push_back(
          absl::StrCat(tier, " external hit rate ", Percent(engine.external_hit_rate())));
    } else {
      service.idle.push_back(absl::StrCat(tier, " no external prefix-cache hits",
                                          chunks.empty() ? "" : ", " + chunks));
    }
  }
  return service;
}

}  // namespace kvbench::results
