#pragma once

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace kvbench::sim {

// What a request generates, drawn deterministically from the engine seed and the request id, so
// a rerun with the same seed and ids produces the same lengths and tokens.
class OutputSampler {
 public:
  struct Length {
    int tokens = 0;
    bool hits_max = false;  // true: finish reason "length", else "stop" (an EOS came first)
  };

  // `mean_output_tokens` is the mean length of an answer that ends on its own.
  OutputSampler(uint64_t seed, int mean_output_tokens);

  // ignore_eos: exactly max_tokens. Otherwise an exponential draw of mean `mean_output_tokens`
  // (at least 1), cut at max_tokens. max_tokens below 1 counts as 1.
  Length OutputLength(absl::string_view request_id, int max_tokens, bool ignore_eos) const;
  // The id of the `index`-th generated token of the request, below SimTokenizer::kVocabSize.
  uint32_t Token(absl::string_view request_id, int index) const;

 private:
  uint64_t RequestKey(absl::string_view request_id) const;

  const uint64_t seed_;
  const int mean_output_tokens_;
};

}  // namespace kvbench::sim
