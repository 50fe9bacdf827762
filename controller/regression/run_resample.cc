#include "controller/regression/run_resample.h"

namespace kvbench::regression {

int UserCount(const std::vector<RunSample>& runs) {
  int users = 0;
  for (const RunSample& run : runs) users += static_cast<int>(run.users.size());
  return users;
}

size_t DrawIndex(std::mt19937_64& random, size_t n) {
  const double unit = static_cast<double>(random() >> 11) * 0x1.0p-53;
  return static_cast<size_t>(unit * static_cast<double>(n));
}

MetricValues Resample(const std::vector<RunSample>& runs, std::mt19937_64& random) {
  std::vector<const UserRequests*> users;
  double duration_s = 0;
  for (size_t r = 0; r < runs.size(); ++r) {
    const RunSample& run = runs.size() == 1 ? runs[0] : runs[DrawIndex(random, runs.size())];
    double all_span = 0;
    double drawn_span = 0;
    for (size_t i = 0; i < run.users.size(); ++i) {
      const UserRequests& drawn = run.users[DrawIndex(random, run.users.size())];
      users.push_back(&drawn);
      all_span += run.users[i].span_s;
      drawn_span += drawn.span_s;
    }
    duration_s += all_span > 0 ? run.duration_s * drawn_span / all_span : run.duration_s;
  }
  return ComputeMetrics(users, duration_s);
}

}  // namespace kvbench::regression
