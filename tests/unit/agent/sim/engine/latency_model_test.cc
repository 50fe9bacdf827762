#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "agent/sim/engine/engine_config.h"
#include "agent/sim/engine/latency_model.h"
#include "agent/sim/engine/model_catalog.h"

namespace kvbench::sim {
namespace {

constexpr int64_t kChunkBytes8b = 256 * 131072;  // 32 MiB

LatencyModel Llama8b(int tp = 1) {
  return LatencyModel(*FindModel("Llama-3.1-8B"), LatencyConstants{}, tp, kChunkBytes8b);
}

TEST_CASE("LatencyModel prefill matches the H200 calibration fit", "[sim_engine]") {
  // reference/sim-calibration.md "Prefill": measured 19.4 / 59.3 / 262 / 1377 ms including a
  // 5.7 ms eager-stack overhead that the model leaves out.
  struct Case {
    int64_t tokens;
    double measured_s;
  };
  const Case cases[] = {{512, 19.4e-3}, {2048, 59.3e-3}, {8192, 262e-3}, {32768, 1377e-3}};
  const LatencyModel model = Llama8b();
  for (const Case& c : cases) {
    INFO(c.tokens << " tokens");
    const double predicted = 5.7e-3 + model.PrefillChunkSeconds(0, c.tokens);
    CHECK(predicted == Approx(c.measured_s).epsilon(0.05));
  }
}

TEST_CASE("LatencyModel chunked prefill costs what one prefill costs", "[sim_engine]") {
  const LatencyModel model = Llama8b();
  const double whole = model.PrefillChunkSeconds(0, 8192);
  const double chunks = model.PrefillChunkSeconds(0, 2048) + model.PrefillChunkSeconds(2048, 4096) +
                        model.PrefillChunkSeconds(6144, 2048);
  CHECK(chunks == Approx(whole).epsilon(1e-12));
  // New tokens after a long cached prefix cost more than the same tokens cold.
  CHECK(model.PrefillChunkSeconds(32768, 256) > model.PrefillChunkSeconds(0, 256));
}

TEST_CASE("LatencyModel prefill scales with active parameters and TP", "[sim_engine]") {
  struct Case {
    std::string model;
    int tp;
    double factor;  // relative to Llama-3.1-8B at TP 1
  };
  const Case cases[] = {{"Llama-3.1-8B", 2, 0.5},
                        {"Llama-3.1-70B", 1, 70.6 / 8.0},
                        {"Llama-3.1-70B", 4, 70.6 / 8.0 / 4},
                        {"gpt-oss-120b", 1, 5.1 / 8.0}};
  const double base = Llama8b().PrefillChunkSeconds(100, 1000);
  for (const Case& c : cases) {
    INFO(c.model << " TP " << c.tp);
    const LatencyModel model(*FindModel(c.model), LatencyConstants{}, c.tp, kChunkBytes8b);
    CHECK(model.PrefillChunkSeconds(100, 1000) == Approx(base * c.factor));
  }
}

TEST_CASE("LatencyModel decode step grows with batch size and context", "[sim_engine]") {
  const LatencyModel model = Llama8b();
  // reference/sim-calibration.md "Decode": ~6 ms at batch 1, ~17 ms at batch 32 x 8k context.
  struct Case {
    int batch;
    int64_t context;
    double expected_s;
  };
  const Case cases[] = {{1, 1, 6.3e-3}, {32, 8192, 17.7e-3}};
  for (const Case& c : cases) {
    StepComposition step;
    step.num_decodes = c.batch;
    step.decode_context_tokens = c.batch * c.context;
    CHECK(model.StepSeconds(step) == Approx(c.expected_s).epsilon(0.03));
  }
  double previous = 0;
  for (int batch : {1, 2, 8, 32, 128}) {
    for (int64_t context : {1024, 4096, 16384}) {
      StepComposition step;
      step.num_decodes = batch;
      step.decode_context_tokens = batch * context;
      const double seconds = model.StepSeconds(step);
      INFO("batch " << batch << " context " << context);
      CHECK(seconds > previous);
      previous = seconds;
    }
    previous = 0;
    StepComposition small;
    small.num_decodes = batch;
    small.decode_context_tokens = batch * 1024;
    StepComposition bigger = small;
    bigger.num_decodes = batch * 2;
    bigger.decode_context_tokens = batch * 2 * 1024;
    CHECK(model.StepSeconds(bigger) > model.StepSeconds(small));
  }
}

TEST_CASE("LatencyModel external loads cost bytes over tier bandwidth", "[sim_engine]") {
  const LatencyConstants k;
  // 32 MiB chunks: host -> GPU at 55.5 GB/s, disk at 2.0 GB/s (+ the copy).
  const double l1 = kChunkBytes8b / k.host_to_gpu_bytes_per_s;
  const double disk = kChunkBytes8b / k.disk_read_bytes_per_s;
  struct Case {
    int tp;
    int l1_chunks;
    int l2_chunks;
    double expected_s;
  };
  const Case cases[] = {{1, 0, 0, 0},
                        {1, 4, 0, 4 * l1},
                        {1, 2, 3, 5 * l1 + 3 * disk},
                        {2, 4, 0, 2 * l1},  // each GPU copies its half
                        {2, 0, 1, l1 / 2 + disk}};
  for (const Case& c : cases) {
    INFO("tp " << c.tp << " l1 " << c.l1_chunks << " l2 " << c.l2_chunks);
    const LatencyModel model(*FindModel("Llama-3.1-8B"), k, c.tp, kChunkBytes8b);
    CHECK(model.ExternalLoadSeconds(c.l1_chunks, c.l2_chunks) == Approx(c.expected_s));
  }
  // A CPU hit of an 8k history (~1 GiB) is ~13x cheaper than recomputing it ("Host <-> GPU").
  const LatencyModel model = Llama8b();
  CHECK(model.PrefillChunkSeconds(0, 8192) / model.ExternalLoadSeconds(32, 0) > 10);
}

TEST_CASE("LatencyModel step sums overhead prefill decode loads and blocking stores",
          "[sim_engine]") {
  LatencyConstants k;
  k.store_blocking_fraction = 0.5;
  const LatencyModel model(*FindModel("Llama-3.1-8B"), k, 1, kChunkBytes8b);
  StepComposition step;
  step.prefills = {{0, 1000}, {4096, 100}};
  step.num_decodes = 3;
  step.decode_context_tokens = 9000;
  step.external_l1_chunks = 2;
  step.stored_chunks = 4;
  const double expected = k.step_overhead_s + model.PrefillChunkSeconds(0, 1000) +
                          model.PrefillChunkSeconds(4096, 100) + model.DecodeSeconds(9000) +
                          model.ExternalLoadSeconds(2, 0) +
                          0.5 * 4 * kChunkBytes8b / k.host_to_gpu_bytes_per_s;
  CHECK(model.StepSeconds(step) == Approx(expected));
  CHECK(model.StepSeconds(StepComposition{}) == k.step_overhead_s);
}

}  // namespace
}  // namespace kvbench::sim
