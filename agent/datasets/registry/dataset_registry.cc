#include "agent/datasets/registry/dataset_registry.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kvbench::datasets {
namespace {

// The Hugging Face dataset (huggingface.co/datasets/sammshen/lmcache-agentic-traces). The hub is not
// reachable from the build machines, so per-shard sizes and digests are unknown: the shards are
// checked against the ETag and digest recorded at their first download.
constexpr char kSammshenBase[] =
    "https://huggingface.co/datasets/sammshen/lmcache-agentic-traces/resolve/main/";
constexpr int kSammshenShards = 5;

// tau2-bench at the pinned commit (deploy/examples/datasets/README.md).
constexpr char kTau2Commit[] = "59d0fb96f4292815e1f6463fb2f139ffef47dc7f";

DatasetSpec Sammshen() {
  DatasetSpec spec;
  spec.code = "sammshen";
  spec.description =
      "sammshen/lmcache-agentic-traces (Hugging Face): 787 agentic sessions, 24,881 LLM calls, "
      "5 Parquet shards (about 2.37 GB)";
  spec.note =
      "shard sizes and SHA-256 unknown: verified by the ETag and digest recorded at first download";
  for (int shard = 0; shard < kSammshenShards; ++shard) {
    const std::string file = absl::StrCat("data/train-0000", shard, "-of-00005.parquet");
    spec.files.push_back({absl::StrCat("lmcache-agentic-traces/", file),
                          absl::StrCat(kSammshenBase, file), std::nullopt, ""});
  }
  return spec;
}

DatasetSpec Tau2BenchV1() {
  DatasetSpec spec;
  spec.code = "tau2-bench-v1";
  spec.description =
      "tau2-bench airline results (sierra-research/tau2-bench, MIT): 20 sessions, gpt-4.1 agent";
  spec.note = "SHA-256 pinned";
  spec.files.push_back(
      {"tau2_airline_gpt-4.1_results.json",
       absl::StrCat("https://raw.githubusercontent.com/sierra-research/tau2-bench/", kTau2Commit,
                    "/src/experiments/model_training/results/"
                    "gpt-4.1_airline_default_gpt-4.1_1trials.json"),
       796333, "57f7bba1fd0366019867f5c0af877e73b98e68040e36d0e7b064df7f7bb1c289"});
  return spec;
}

}  // namespace

const std::vector<DatasetSpec>& KnownDatasets() {
  static const auto* known = new std::vector<DatasetSpec>{Sammshen(), Tau2BenchV1()};
  return *known;
}

const DatasetSpec* FindDataset(const std::string& code) {
  for (const DatasetSpec& spec : KnownDatasets()) {
    if (spec.code == code) return &spec;
  }
  return nullptr;
}

std::string KnownDatasetCodes() {
  return absl::StrJoin(KnownDatasets(), ", ", [](std::string* out, const DatasetSpec& spec) {
    out->append(spec.code);
  });
}

}  // namespace kvbench::datasets
