#include "agent/sim/engine/output_sampler.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "agent/sim/engine/tokenizer.h"

namespace kvbench::sim {
namespace {

// splitmix64: a full-avalanche mix of one word.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A uniform draw in [0, 1) from a hash.
double Uniform(uint64_t hash) { return static_cast<double>(hash >> 11) * 0x1.0p-53; }

constexpr uint64_t kLengthStream = 1;
constexpr uint64_t kTokenStream = 2;

}  // namespace

OutputSampler::OutputSampler(uint64_t seed, int mean_output_tokens)
    : seed_(seed), mean_output_tokens_(std::max(mean_output_tokens, 1)) {}

uint64_t OutputSampler::RequestKey(absl::string_view request_id) const {
  uint64_t key = Mix(seed_);
  for (char c : request_id) key = Mix(key ^ static_cast<unsigned char>(c));
  return key;
}

OutputSampler::Length OutputSampler::OutputLength(absl::string_view request_id, int max_tokens,
                                                  bool ignore_eos) const {
  const int limit = std::max(max_tokens, 1);
  if (ignore_eos) return {limit, true};
  const double u = Uniform(Mix(RequestKey(request_id) ^ kLengthStream));
  // Exponential of mean m on {1, 2, ...}: 1 + floor(-(m - 1) ln(1 - u)).
  const double drawn = 1.0 + std::floor(-(mean_output_tokens_ - 1.0) * std::log1p(-u));
  if (drawn >= limit) return {limit, true};
  return {static_cast<int>(drawn), false};
}

uint32_t OutputSampler::Token(absl::string_view request_id, int index) const {
  const uint64_t hash =
      Mix(RequestKey(request_id) ^ Mix(kTokenStream + static_cast<uint64_t>(index)));
  return static_cast<uint32_t>(hash % SimTokenizer::kVocabSize);
}

}  // namespace kvbench::sim
