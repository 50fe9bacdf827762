// Fuzz target for the dataset loaders (LoadDataset, then ChunkIntoUsers): a dataset is a file a
// user downloads from anywhere, so any bytes in, no crash, no hang. The first byte picks the
// format (0 sharegpt, 1 openai-messages, 2 sammshen, 3 tau2-bench-v1, 4 lmcache-agent-trace, by
// its value mod 5); the rest is the file. Invariants: what a loader accepts is what the runner
// can replay (every round has a non-empty array of messages, a finite pre-gap >= 0 and an output
// length >= 0), and chunking gives users of exactly the asked number of rounds.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "agent/datasets/dataset_loader.h"
#include "common/log/logging.h"
#include "tests/fuzz/fuzz_temp_dir.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "dataset_loader_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Warnings about bad input are the expected outcome, millions of times over.
  static const bool quiet = (kvbench::SetMinLogLevel(kvbench::LogLevel::kFatal), true);
  (void)quiet;
  using kvbench::datasets::Dataset;
  if (size == 0) return 0;
  static const char* const kCodes[] = {"sharegpt", "openai-messages", "sammshen", "tau2-bench-v1",
                                       "lmcache-agent-trace"};
  const std::string code = kCodes[data[0] % 5];
  const std::string path = kvbench::fuzz::FuzzTempDir::Get().Write(
      "dataset.jsonl", absl::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  absl::StatusOr<Dataset> dataset = kvbench::datasets::LoadDataset(code, path);
  if (!dataset.ok()) {
    if (dataset.status().message().find(path) == std::string::npos) {
      Fail("an error that does not name the file", dataset.status().ToString());
    }
    return 0;
  }
  for (const kvbench::datasets::Session& session : dataset->sessions) {
    for (const kvbench::datasets::Round& round : session.rounds) {
      if (!round.messages.is_array() || round.messages.empty()) {
        Fail("a round without messages", code + " " + round.origin);
      }
      if (!std::isfinite(round.pre_gap_s) || round.pre_gap_s < 0 || round.output_tokens < 0) {
        Fail("a round with a negative or non-finite gap or output length",
             code + " " + round.origin);
      }
    }
  }
  for (int rounds = 1; rounds <= 3; ++rounds) {
    auto users = kvbench::datasets::ChunkIntoUsers(*dataset, rounds, /*min_chunk_rounds=*/1);
    if (!users.ok()) continue;
    for (const kvbench::datasets::VirtualUser& user : *users) {
      if (user.rounds.size() != static_cast<size_t>(rounds)) {
        Fail("a user of the wrong number of rounds", code + " " + user.user_id);
      }
    }
  }
  return 0;
}
