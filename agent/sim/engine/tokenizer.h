#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace kvbench::sim {

// A deterministic tokenizer good enough for load: text splits into pieces, each piece → a stable id
// from its hash. Pieces, like a BPE pre-tokenizer's: a run of at most 8 letter bytes (bytes >= 0x80
// count as letters) with one optional leading space, a run of at most 3 digits, a run of at most 2
// punctuation bytes, or a run of whitespace (leaving its last space to a following word). About 4
// characters per token on English prose and 3.3 on JSON-heavy chat prompts, like real vocabularies
// (the tau2 airline conversations: 0.25 and 0.30 tokens per character).
// Encode(a + b) == Encode(a) + Encode(b) whenever `a` ends at a piece boundary (the chat template
// guarantees this between messages), so a conversation's prompt extends its previous one.
class SimTokenizer {
 public:
  static constexpr uint32_t kVocabSize = 128256;  // Llama-3's

  static std::vector<uint32_t> Encode(absl::string_view text);
  static size_t CountTokens(absl::string_view text);
  // Text for generated token ids: short deterministic words, so streamed output looks like text.
  static std::string Decode(uint32_t token);
};

}  // namespace kvbench::sim
