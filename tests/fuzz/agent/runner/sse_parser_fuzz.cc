// Fuzz target for kv-runner's SSE parser (what a server under test streams back): any bytes in,
// no crash. Invariant: the events do not depend on how the stream was cut into reads (the whole
// input at once, byte by byte, and in chunks whose sizes come from the input itself).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "agent/runner/sse_parser.h"

namespace {

std::vector<std::string> Events(absl::string_view text, size_t (*next_size)(size_t, size_t)) {
  kvbench::runner::SseParser parser;
  std::vector<std::string> events;
  for (size_t at = 0, i = 0; at < text.size(); ++i) {
    const size_t size = std::min(text.size() - at, next_size(i, text.size()));
    parser.Feed(text.substr(at, size), &events);
    at += size;
  }
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> whole = Events(text, [](size_t, size_t n) { return n; });
  const std::vector<std::string> bytes = Events(text, [](size_t, size_t) { return size_t{1}; });
  const std::vector<std::string> odd =
      Events(text, [](size_t i, size_t) { return size_t{1} + (i * 7919) % 13; });
  if (whole != bytes || whole != odd) {
    std::fprintf(stderr, "sse_parser_fuzz: events depend on the chunking (%zu, %zu, %zu)\n",
                 whole.size(), bytes.size(), odd.size());
    std::abort();
  }
  return 0;
}
