// kv-dataset-digest CODE PATH NUM_ROUNDS: a canonical text dump of what kvbench reads from a
// dataset — every session and round (messages as JSON, output tokens, pre-gap) and the virtual
// users it yields at NUM_ROUNDS — so two encodings of the same rows (sammshen as JSONL and as
// Parquet from an independent writer: e2e.sammshen_parquet) can be compared with cmp.

#include <cstdio>
#include <iostream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "agent/datasets/dataset_loader.h"

int main(int argc, char** argv) {
  using namespace kvbench::datasets;
  int num_rounds = 0;
  if (argc != 4 || !absl::SimpleAtoi(argv[3], &num_rounds) || num_rounds <= 0) {
    std::cerr << "usage: kv-dataset-digest CODE PATH NUM_ROUNDS\n";
    return 2;
  }
  absl::StatusOr<Dataset> dataset = LoadDataset(argv[1], argv[2]);
  if (!dataset.ok()) {
    std::cerr << "kv-dataset-digest: " << dataset.status().message() << "\n";
    return 1;
  }
  for (const Session& session : dataset->sessions) {
    std::cout << "session " << session.id << " model=" << session.model
              << " rounds=" << session.rounds.size() << "\n";
    for (const Round& round : session.rounds) {
      std::cout << absl::StrFormat("  round output_tokens=%d pre_gap_s=%.17g\n    %s\n",
                                   round.output_tokens, round.pre_gap_s, round.messages.dump());
    }
  }
  absl::StatusOr<std::vector<VirtualUser>> users =
      ChunkIntoUsers(*dataset, num_rounds, kDefaultMinChunkRounds);
  if (!users.ok()) {
    std::cerr << "kv-dataset-digest: " << users.status().message() << "\n";
    return 1;
  }
  for (const VirtualUser& user : *users) {
    std::cout << "user " << user.user_id << " session=" << user.session_id
              << " first_round=" << user.first_round << " rounds=" << user.rounds.size() << "\n";
  }
  return 0;
}
