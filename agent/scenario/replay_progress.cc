#include "agent/scenario/replay_progress.h"

#include <algorithm>
#include <fstream>
#include <utility>

#include "absl/strings/str_split.h"
#include "agent/results/counted_prompts.h"
#include "agent/runner/request_record.h"

namespace kvbench::agent {

ReplayProgress::ReplayProgress(std::string requests_path, std::string prompts_path)
    : requests_path_(std::move(requests_path)), prompts_path_(std::move(prompts_path)) {}

void ReplayProgress::LoadPlan() {
  std::ifstream in(prompts_path_);
  if (!in) return;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    absl::StatusOr<results::CountedPrompt> prompt = results::ParsePromptLine(line);
    if (!prompt.ok()) return;  // not the runner's file: progress without sessions
    int& rounds = last_round_[prompt->user_id];
    rounds = std::max(rounds, prompt->round);
    ++requests_planned_;
  }
  planned_ = !last_round_.empty();
}

bool ReplayProgress::Update() {
  std::ifstream in(requests_path_, std::ios::binary);
  if (!in || !in.seekg(read_to_)) return false;
  std::string appended((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (appended.empty()) return false;
  read_to_ += static_cast<std::streamoff>(appended.size());
  partial_ += appended;
  const size_t complete = partial_.rfind('\n');
  if (complete == std::string::npos) return false;
  const int64_t before = requests_done_;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(partial_).substr(0, complete), '\n')) {
    ++requests_done_;
    AddRecord(line);
  }
  partial_.erase(0, complete + 1);
  return requests_done_ != before;
}

void ReplayProgress::AddRecord(absl::string_view line) {
  if (!planned_) return;
  absl::StatusOr<runner::RequestRecord> record = runner::ParseJsonLine(line);
  if (!record.ok()) return;
  auto planned = last_round_.find(record->user_id);
  if (planned != last_round_.end() && record->round == planned->second) ++sessions_done_;
}

std::optional<int> ReplayProgress::sessions_done() const {
  if (!planned_) return std::nullopt;
  return sessions_done_;
}

std::optional<int> ReplayProgress::sessions_total() const {
  if (!planned_) return std::nullopt;
  return static_cast<int>(last_round_.size());
}

std::optional<int64_t> ReplayProgress::requests_total() const {
  if (!planned_) return std::nullopt;
  return requests_planned_;
}

}  // namespace kvbench::agent
