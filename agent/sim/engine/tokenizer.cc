#include "agent/sim/engine/tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kvbench::sim {
namespace {

constexpr size_t kMaxLetterRun = 8;
constexpr size_t kMaxDigitRun = 3;  // Llama-3 and o200k split numbers into groups of 3
constexpr size_t kMaxPunctuationRun = 2;

enum class ByteClass { kLetter, kDigit, kSpace, kPunctuation };

ByteClass Classify(char c) {
  const auto b = static_cast<unsigned char>(c);
  if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b >= 0x80) return ByteClass::kLetter;
  if (b >= '0' && b <= '9') return ByteClass::kDigit;
  if (b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f') {
    return ByteClass::kSpace;
  }
  return ByteClass::kPunctuation;
}

bool IsLetterAt(absl::string_view text, size_t i) {
  return i < text.size() && Classify(text[i]) == ByteClass::kLetter;
}

// End of a run of `cls` bytes starting at `i`, at most `max_len` long.
size_t RunEnd(absl::string_view text, size_t i, ByteClass cls, size_t max_len) {
  size_t end = i;
  while (end < text.size() && end - i < max_len && Classify(text[end]) == cls) ++end;
  return end;
}

// The end of the piece starting at `i` (< text.size()).
size_t PieceEnd(absl::string_view text, size_t i) {
  // A single space joins the word after it (" word"), as in BPE vocabularies.
  if (text[i] == ' ' && IsLetterAt(text, i + 1)) {
    return RunEnd(text, i + 1, ByteClass::kLetter, kMaxLetterRun);
  }
  switch (Classify(text[i])) {
    case ByteClass::kLetter:
      return RunEnd(text, i, ByteClass::kLetter, kMaxLetterRun);
    case ByteClass::kDigit:
      return RunEnd(text, i, ByteClass::kDigit, kMaxDigitRun);
    case ByteClass::kPunctuation:
      return RunEnd(text, i, ByteClass::kPunctuation, kMaxPunctuationRun);
    case ByteClass::kSpace:
      break;
  }
  size_t end = RunEnd(text, i, ByteClass::kSpace, text.size());
  // Leave the run's last space to a following word, so "a  b" is "a", " ", " b".
  if (end - i > 1 && text[end - 1] == ' ' && IsLetterAt(text, end)) --end;
  return end;
}

// FNV-1a, 64 bits: stable across processes and platforms.
uint32_t PieceId(absl::string_view piece) {
  uint64_t hash = 14695981039346656037ull;
  for (char c : piece) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return static_cast<uint32_t>(hash % SimTokenizer::kVocabSize);
}

// Words that generated tokens read as; each begins with a space so streamed text stays readable.
constexpr const char* kWords[] = {
    " the",  " of",    " and",   " to",     " a",     " in",    " is",    " that",
    " for",  " it",    " as",    " with",   " was",   " on",    " be",    " by",
    " this", " are",   " from",  " at",     " or",    " an",    " have",  " not",
    " can",  " will",  " your",  " flight", " which", " their", " there", " more",
    " time", " when",  " we",    " some",   " these", " other", " would", " about",
    " data", " cache", " token", " model",  " user",  " ask",   " one",   " two",
    " new",  " first", " each",  " may",    " also",  " into",  " only",  " use",
    " than", " then",  " them",  " very",   " well",  " just",  " how",   ".",
};

}  // namespace

std::vector<uint32_t> SimTokenizer::Encode(absl::string_view text) {
  std::vector<uint32_t> tokens;
  tokens.reserve(text.size() / 3 + 1);
  for (size_t i = 0; i < text.size();) {
    const size_t end = PieceEnd(text, i);
    tokens.push_back(PieceId(text.substr(i, end - i)));
    i = end;
  }
  return tokens;
}

size_t SimTokenizer::CountTokens(absl::string_view text) {
  size_t count = 0;
  for (size_t i = 0; i < text.size(); i = PieceEnd(text, i)) ++count;
  return count;
}

std::string SimTokenizer::Decode(uint32_t token) {
  constexpr size_t kNumWords = sizeof(kWords) / sizeof(kWords[0]);
  return kWords[token % kNumWords];
}

}  // namespace kvbench::sim
