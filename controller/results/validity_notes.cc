#include "controller/results/validity_notes.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller/results/validity.h"
#include "controller/results/validity_text.h"

namespace kvbench::results {
namespace {

constexpr char kLeastConn[] = "least_conn";

// How Caddy routed the run: the agent's record of it, else what the spec implies.
std::string Routing(const ScenarioRun& run) {
  if (!run.result->routing().empty()) return run.result->routing();
  const int replicas = run.spec.has_replicas() ? run.spec.replicas() : 1;
  if (replicas < 2) return "";
  if (run.scenario.tier() == v1::GPU) return "sticky";
  return run.spec.offload_routing() == v1::OFFLOAD_ROUTING_STICKY ? "sticky" : kLeastConn;
}

}  // namespace

void AddNote(v1::Validity* validity, const char* code, std::string message) {
  v1::ValidityReason* note = validity->add_notes();
  note->set_code(code);
  note->set_message(std::move(message));
}

void AddLmcacheNotes(const std::vector<const ScenarioRun*>& group, v1::Validity* validity) {
  for (const ScenarioRun* run : group) {
    if (run->state != v1::SCENARIO_STATE_SUCCEEDED || !run->result) continue;
    const std::string tier = TierName(run->scenario.tier());
    const v1::LmcacheMetrics& lmcache = run->result->lmcache();
    if (lmcache.dropped_events() > 0) {
      AddNote(validity, kLmcacheEventsDropped,
              absl::StrCat(tier, ": LMCache dropped ", WithCommas(lmcache.dropped_events()),
                           " metric events during the replay, so its LMCache counters (hit "
                           "tokens, evictions, chunks loaded) are undercounted; TTFT is not "
                           "affected"));
    }
    for (const v1::ResultWarning& warning : run->result->warnings()) {
      if (warning.code() == kNvmeReadsNotFromDisk) {
        AddNote(validity, kNvmeReadsNotFromDisk, absl::StrCat(tier, ": ", warning.message()));
      }
    }
  }
}

void AddRoutingNote(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity) {
  std::vector<std::string> least_conn;
  int replicas = 0;
  bool simulated = false;
  for (const ScenarioRun* run : with_results) {
    if (run->scenario.tier() == v1::GPU || Routing(*run) != kLeastConn) continue;
    least_conn.push_back(TierName(run->scenario.tier()));
    replicas = run->spec.has_replicas() ? run->spec.replicas() : 1;
    simulated = simulated || run->spec.engine() == v1::SIM;
  }
  if (least_conn.empty()) return;
  // Caddy's least_conn picks at random among the upstreams with the fewest connections
  // (caddyserver/caddy modules/caddyhttp/reverseproxy/selectionpolicies.go, leastConnSelection):
  // on the simulated engine, whose numbers otherwise repeat exactly, that is what still varies.
  const std::string varies =
      simulated ? absl::StrCat("; least_conn breaks ties at random, so with one seed ",
                               absl::StrJoin(least_conn, " and "),
                               " still differ from run to run on the simulated engine, which "
                               "otherwise repeats its numbers exactly")
                : "";
  AddNote(validity, kRoutingDiffers,
          absl::StrCat(absl::StrJoin(least_conn, " and "), " ran least_conn over ", replicas,
                       " replicas sharing one LMCache, the GPU tier sticky by X-User-Id: the "
                       "deltas include routing and cross-replica sharing as well as offload",
                       varies,
                       " (\"offload_routing\": \"STICKY\" runs the offload tiers sticky too, to "
                       "separate the two)"));
}

}  // namespace kvbench::results
