#include "agent/sampler/external_query_counting.h"

#include <algorithm>
#include <cstdlib>

namespace kvbench::sampler {

std::string ExternalQueryCounting(int64_t prefix_query_tokens, int64_t prefix_hit_tokens,
                                  int64_t external_query_tokens) {
  if (external_query_tokens <= 0 || prefix_query_tokens <= 0 || prefix_hit_tokens <= 0) return "";
  const int64_t tolerance = std::max<int64_t>(1, prefix_query_tokens / 50);
  const int64_t off_whole = std::llabs(external_query_tokens - prefix_query_tokens);
  const int64_t off_rest =
      std::llabs(external_query_tokens - (prefix_query_tokens - prefix_hit_tokens));
  if (off_rest <= tolerance && off_rest < off_whole) return kPromptMinusLocal;
  if (off_whole <= tolerance && off_whole < off_rest) return kWholePrompt;
  return "";
}

}  // namespace kvbench::sampler
