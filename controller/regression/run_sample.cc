#include "controller/regression/run_sample.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

namespace kvbench::regression {

RunSample GroupByUser(std::string label, const std::vector<v1::RequestRow>& rows,
                      double time_scale) {
  RunSample sample;
  sample.label = std::move(label);
  std::unordered_map<std::string, size_t> index_of_user;
  std::vector<std::pair<double, double>> spans;  // per user: first scheduled, last end
  double first_scheduled = std::numeric_limits<double>::infinity();
  double last_end = -std::numeric_limits<double>::infinity();
  for (const v1::RequestRow& row : rows) {
    first_scheduled = std::min(first_scheduled, row.scheduled_s());
    last_end = std::max(last_end, row.end_s());
    auto [it, inserted] = index_of_user.emplace(row.user_id(), sample.users.size());
    if (inserted) {
      sample.users.emplace_back();
      sample.users.back().user_id = row.user_id();
      spans.emplace_back(row.scheduled_s(), row.end_s());
    }
    UserRequests& user = sample.users[it->second];
    spans[it->second].first = std::min(spans[it->second].first, row.scheduled_s());
    spans[it->second].second = std::max(spans[it->second].second, row.end_s());
    if (row.has_error()) continue;
    ++user.requests;
    user.prompt_tokens += row.prompt_tokens();
    user.output_tokens += row.output_tokens();
    if (row.has_cached_tokens()) {
      user.cached_tokens += row.cached_tokens();
      user.reported_cached = true;
    }
    if (row.has_ttft_s()) user.ttft_s.push_back(row.ttft_s() / time_scale);
    if (row.output_tokens() >= 2 && row.has_first_token_s()) {
      user.tpot_s.push_back((row.end_s() - row.first_token_s()) / (row.output_tokens() - 1) /
                            time_scale);
    }
  }
  for (size_t u = 0; u < spans.size(); ++u) {
    sample.users[u].span_s = std::max(0.0, spans[u].second - spans[u].first) / time_scale;
  }
  if (!rows.empty()) sample.duration_s = std::max(0.0, last_end - first_scheduled) / time_scale;
  return sample;
}

}  // namespace kvbench::regression
