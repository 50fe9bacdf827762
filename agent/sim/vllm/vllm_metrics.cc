#include "agent/sim/vllm/vllm_metrics.h"

#include <prometheus/text_serializer.h>

#include "absl/strings/str_cat.h"
#include "agent/sim/vllm/response_formatter.h"

namespace kvbench::sim {
namespace {

using prometheus::Histogram;

// vLLM's histogram buckets (reference/vllm.md §2.2).
const Histogram::BucketBoundaries& TtftBuckets() {
  static const Histogram::BucketBoundaries b = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,
                                                0.25,  0.5,   0.75, 1,    2.5,  5,    7.5,  10,
                                                20,    40,    80,   160,  640,  2560};
  return b;
}
const Histogram::BucketBoundaries& ItlBuckets() {
  static const Histogram::BucketBoundaries b = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,
                                                0.3,  0.4,   0.5,  0.75,  1,   2.5,  5,
                                                7.5,  10,    20,   40,    80};
  return b;
}
const Histogram::BucketBoundaries& RequestLatencyBuckets() {
  static const Histogram::BucketBoundaries b = {0.3, 0.5, 0.8, 1,   1.5, 2,   2.5,
                                                5,   10,  15,  20,  30,  40,  50,
                                                60,  120, 240, 480, 960, 1920, 7680};
  return b;
}
// kvsim:step_lateness_seconds, real seconds: a quiet host wakes the engine thread within tens of
// microseconds; a saturated one makes steps late by milliseconds to seconds.
const Histogram::BucketBoundaries& StepLatenessBuckets() {
  static const Histogram::BucketBoundaries b = {
      0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10};
  return b;
}
// build_1_2_5_buckets(max_model_len) of vLLM: 1, 2, 5, 10, 20, 50, ... up to max.
Histogram::BucketBoundaries OneTwoFiveBuckets(int max_value) {
  Histogram::BucketBoundaries buckets;
  for (double exponent = 1; ; exponent *= 10) {
    for (double mantissa : {1.0, 2.0, 5.0}) {
      double value = mantissa * exponent;
      if (value > max_value) return buckets;
      buckets.push_back(value);
    }
  }
}

}  // namespace

struct VllmMetrics::Histograms {
  Histogram* ttft;
  Histogram* inter_token;
  Histogram* time_per_output_token;
  Histogram* e2e;
  Histogram* queue;
  Histogram* prefill;
  Histogram* decode;
  Histogram* inference;
  Histogram* prompt_tokens;
  Histogram* generation_tokens;
  Histogram* max_tokens;
};

VllmMetrics::VllmMetrics(const Options& options, const EngineConfig& engine)
    : options_(options), registry_(std::make_shared<prometheus::Registry>()) {
  const prometheus::Labels labels = {{"model_name", options.model_name}, {"engine", "0"}};
  auto gauge = [&](const char* name, const char* help) {
    return &prometheus::BuildGauge().Name(name).Help(help).Register(*registry_).Add(labels);
  };
  auto counter = [&](const char* name, const char* help) {
    return &prometheus::BuildCounter().Name(name).Help(help).Register(*registry_).Add(labels);
  };
  running_ = gauge("vllm:num_requests_running", "Number of requests in model execution batches.");
  waiting_ = gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.");
  kv_cache_usage_ = gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.");
  prefix_queries_ = counter("vllm:prefix_cache_queries_total",
                            "Prefix cache queries, in terms of number of queried tokens.");
  prefix_hits_ = counter("vllm:prefix_cache_hits_total",
                         "Prefix cache hits, in terms of number of cached tokens.");
  if (options.with_connector) {
    external_queries_ = counter("vllm:external_prefix_cache_queries_total",
                                "External prefix cache queries from KV connector, in tokens.");
    external_hits_ = counter("vllm:external_prefix_cache_hits_total",
                             "External prefix cache hits from KV connector, in tokens.");
  }
  prompt_tokens_ = counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.");
  generation_tokens_ =
      counter("vllm:generation_tokens_total", "Number of generation tokens processed.");
  preemptions_ = counter("vllm:num_preemptions_total", "Cumulative number of preemption.");
  success_ = &prometheus::BuildCounter()
                  .Name("vllm:request_success_total")
                  .Help("Count of successfully processed requests.")
                  .Register(*registry_);
  for (FinishReason reason : {FinishReason::kStop, FinishReason::kLength, FinishReason::kAbort}) {
    success_->Add({{"model_name", options.model_name}, {"engine", "0"},
                   {"finished_reason", ResponseFormatter::FinishReasonName(reason)}});
  }
  prometheus::BuildGauge()
      .Name("vllm:cache_config_info")
      .Help("Information of the LLMEngine CacheConfig")
      .Register(*registry_)
      .Add({{"engine", "0"},
            {"block_size", absl::StrCat(engine.block_size)},
            {"num_gpu_blocks", absl::StrCat(engine.num_gpu_blocks)},
            {"enable_prefix_caching", engine.enable_prefix_caching ? "True" : "False"},
            {"gpu_memory_utilization", absl::StrCat(options.gpu_memory_utilization)},
            {"cache_dtype", "auto"}})
      .Set(1);
  step_lateness_ = &prometheus::BuildHistogram()
                        .Name("kvsim:step_lateness_seconds")
                        .Help(
                            "kvsim's own, not vLLM's: real seconds by which each simulated "
                            "engine step's outputs went out after their due time (start + "
                            "simulated end x time scale); grows when the host cannot keep up")
                        .Register(*registry_)
                        .Add(labels, StepLatenessBuckets());
  if (options.omit_histograms) return;
  auto histogram = [&](const char* name, const char* help,
                       const Histogram::BucketBoundaries& buckets) {
    return &prometheus::BuildHistogram().Name(name).Help(help).Register(*registry_).Add(labels,
                                                                                         buckets);
  };
  histograms_ = std::make_unique<Histograms>();
  Histograms& h = *histograms_;
  h.ttft = histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", TtftBuckets());
  h.inter_token = histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", ItlBuckets());
  h.time_per_output_token = histogram("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", ItlBuckets());
  h.e2e = histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", RequestLatencyBuckets());
  h.queue = histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", RequestLatencyBuckets());
  h.prefill = histogram("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", RequestLatencyBuckets());
  h.decode = histogram("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", RequestLatencyBuckets());
  h.inference = histogram("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", RequestLatencyBuckets());
  const int max_len = engine.max_model_len > 0 ? engine.max_model_len : engine.model.max_model_len;
  h.prompt_tokens = histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", OneTwoFiveBuckets(max_len));
  h.generation_tokens = histogram("vllm:request_generation_tokens", "Number of generation tokens processed.", OneTwoFiveBuckets(max_len));
  h.max_tokens = histogram("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", OneTwoFiveBuckets(max_len));
}

VllmMetrics::~VllmMetrics() = default;

std::string VllmMetrics::Render() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

void VllmMetrics::OnStep(const StepStats& stats) {
  running_->Set(stats.running);
  waiting_->Set(stats.waiting);
  kv_cache_usage_->Set(stats.kv_cache_usage);
}

void VllmMetrics::OnPrefixCacheLookup(int64_t queries, int64_t hits) {
  prefix_queries_->Increment(static_cast<double>(queries));
  prefix_hits_->Increment(static_cast<double>(hits));
}

void VllmMetrics::OnExternalCacheLookup(int64_t queries, int64_t hits) {
  if (external_queries_ == nullptr) return;
  external_queries_->Increment(static_cast<double>(queries));
  external_hits_->Increment(static_cast<double>(hits));
}

void VllmMetrics::OnPreemption() { preemptions_->Increment(); }

void VllmMetrics::OnStepLateness(double real_seconds) { step_lateness_->Observe(real_seconds); }

void VllmMetrics::OnRequestFinished(const FinishedRequest& request) {
  prompt_tokens_->Increment(request.prompt_tokens);
  generation_tokens_->Increment(request.generation_tokens);
  success_
      ->Add({{"model_name", options_.model_name}, {"engine", "0"},
             {"finished_reason", ResponseFormatter::FinishReasonName(request.reason)}})
      .Increment();
  if (histograms_ == nullptr) return;
  const double scale = options_.time_scale;
  const RequestTimings& t = request.timings;
  Histograms& h = *histograms_;
  if (t.first_token_s >= 0) h.ttft->Observe((t.first_token_s - t.arrival_s) * scale);
  for (double gap : request.inter_token_s) h.inter_token->Observe(gap * scale);
  if (t.finished_s >= 0) h.e2e->Observe((t.finished_s - t.arrival_s) * scale);
  if (t.scheduled_s >= 0) {
    h.queue->Observe((t.scheduled_s - t.arrival_s) * scale);
    if (t.finished_s >= 0) h.inference->Observe((t.finished_s - t.scheduled_s) * scale);
    if (t.first_token_s >= 0) h.prefill->Observe((t.first_token_s - t.scheduled_s) * scale);
  }
  if (t.first_token_s >= 0 && t.finished_s >= 0) {
    h.decode->Observe((t.finished_s - t.first_token_s) * scale);
    double per_token = request.generation_tokens > 1
                           ? (t.finished_s - t.first_token_s) / (request.generation_tokens - 1)
                           : 0.0;
    h.time_per_output_token->Observe(per_token * scale);
  }
  h.prompt_tokens->Observe(request.prompt_tokens);
  h.generation_tokens->Observe(request.generation_tokens);
  h.max_tokens->Observe(request.max_tokens);
}

}  // namespace kvbench::sim
