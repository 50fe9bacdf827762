#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace kvbench::sim {

// A deterministic tokenizer good enough for load: text splits into pieces (runs of letters or
// digits of at most 4 bytes, single punctuation bytes, runs of whitespace), each piece → a stable id
// from its hash. Roughly 4 characters per token on English text, like real BPE vocabularies.
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
