#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "agent/sampler/rate_math.h"

namespace kvbench::sampler {

// Which scrapes of a scenario describe the replay itself (DESIGN.md "Sampling").
//
// A scenario is scraped once "before" (when the runner's warm-up has finished, just before the
// measured traffic), "periodic"-ally every sampling period while the runner runs, and once
// "after" (when the runner has exited). The in-replay scrapes are the periodic ones between the
// last "before" and the first "after":
// - not "before": the engine is idle (or finishing the warm-up's tail) there;
// - not "after": it is taken once the runner has exited, when every request has finished and
//   vLLM's KV usage is back to its idle level (vLLM counts free-but-cached blocks as free,
//   reference/vllm.md §2.2), so a mean over it reads the idle engine into the replay's load;
// - not a periodic scrape taken before "before" (during the warm-up) or after "after".
// Gauges (vLLM's KV cache usage, LMCache's L1 usage ratio) are summarised over the in-replay
// scrapes only; counters are diffed from "before" to "after" (ReplayIncrease).
enum class ScrapeKind { kBefore, kPeriodic, kAfter, kOther };
ScrapeKind ParseScrapeKind(std::string_view kind);

// For each scrape (in time order), whether it is in-replay (see above).
std::vector<bool> InReplayScrapes(const std::vector<ScrapeKind>& kinds);

// The index range [first, last] from the last "before" scrape (else the first scrape) to the
// first "after" after it (else the last scrape): the span a counter's increase is taken over.
// nullopt without scrapes.
struct ScrapeSpan {
  std::size_t first = 0;
  std::size_t last = 0;
};
std::optional<ScrapeSpan> ReplaySpan(const std::vector<ScrapeKind>& kinds);

// One scrape of a gauge: its kind, the value of every source (replica) that answered with the
// gauge (none: every scrape failed or lacked it), and when (seconds since the replay started).
struct GaugeScrape {
  ScrapeKind kind = ScrapeKind::kPeriodic;
  std::vector<double> values;
  double t_s = 0;
};

// A gauge over the in-replay scrapes: `mean` is the mean over those scrapes of the mean over the
// sources at each (the replicas share one engine config, so the mean of their fractions is the
// fleet's fraction in use, as the KV usage series shows it); `max` the highest value of any
// source at any of them; `scrapes` how many scrapes they rest on. Both nullopt (absent, never 0)
// when no in-replay scrape has a value. With `last_response_s` (when the runner's last response
// was seen, on the scrapes' clock), a periodic scrape after it is not in-replay either: the
// runner may take a while to exit after its last answer, and those scrapes read the idle engine
// into the replay's load (a demo c16 cell: mean 37.8% over all, 56.6% over those before it).
struct GaugeSummary {
  std::optional<double> mean;
  std::optional<double> max;
  int scrapes = 0;
  // Those scrapes, each the mean over the sources at it: what the KV usage chart draws (never
  // the idle "before"/"after" ones).
  std::vector<Point> series;
};
GaugeSummary SummarizeInReplay(const std::vector<GaugeScrape>& scrapes,
                               std::optional<double> last_response_s = std::nullopt);

// The sum over the replicas of each one's CounterIncrease (resets handled: a restarted replica's
// counter adds its pre-reset value back); a replica with fewer than 2 points adds nothing.
// nullopt when no replica has 2 points (the counter is absent).
std::optional<double> SummedIncrease(const std::vector<std::vector<Point>>& replicas);

}  // namespace kvbench::sampler
