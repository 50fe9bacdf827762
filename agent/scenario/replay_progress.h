#pragma once

// The replay's progress from the files kv-runner writes while it runs, read incrementally: the
// requests done (records appended to requests.jsonl) and the sessions done (virtual users whose
// last planned round has a record; the plan is prompts.jsonl, every round of every chosen user,
// written before the runner's gate opens), so the sessions count up during the replay, not only
// at its end.

#include <cstdint>
#include <ios>
#include <optional>
#include <string>
#include <unordered_map>

#include "absl/strings/string_view.h"

namespace kvbench::agent {

class ReplayProgress {
 public:
  ReplayProgress(std::string requests_path, std::string prompts_path);

  // Reads prompts.jsonl; call once the runner's gate is open. Without it (absent: the runner
  // counted no prompt), sessions_done() stays unknown.
  void LoadPlan();
  // Reads what was appended to requests.jsonl since the last call (a partial last line waits
  // for its newline); true when the request count changed.
  bool Update();

  int64_t requests_done() const { return requests_done_; }
  std::optional<int> sessions_done() const;
  // From the plan (prompts.jsonl): the chosen users and all their rounds; nullopt without it.
  std::optional<int> sessions_total() const;
  std::optional<int64_t> requests_total() const;

 private:
  void AddRecord(absl::string_view line);

  std::string requests_path_;
  std::string prompts_path_;
  std::streamoff read_to_ = 0;  // bytes of requests.jsonl consumed
  std::string partial_;         // an appended line without its newline yet
  int64_t requests_done_ = 0;
  std::unordered_map<std::string, int> last_round_;  // user → planned rounds
  bool planned_ = false;
  int64_t requests_planned_ = 0;
  int sessions_done_ = 0;
};

}  // namespace kvbench::agent
