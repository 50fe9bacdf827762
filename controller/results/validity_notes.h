#pragma once

// Notes on a comparison group (Validity.notes): facts a reader must know that do not change the
// verdict. Pure.

#include <vector>

#include "controller/results/scenario_run.h"
#include "kvbench/v1/result.pb.h"

namespace kvbench::results {

// Adds a note (code, message) to `validity`.
void AddNote(v1::Validity* validity, const char* code, std::string message);

// kLmcacheEventsDropped per tier whose lmcache.dropped_events > 0, kNvmeReadsNotFromDisk per tier
// whose result carries that warning.
void AddLmcacheNotes(const std::vector<const ScenarioRun*>& group, v1::Validity* validity);

// kRoutingDiffers when, over 2+ replicas, the offload tiers were routed least_conn (sharing one
// LMCache across replicas) while the GPU tier was sticky: their deltas then include routing and
// cross-replica sharing as well as offload. Routing is read from result.routing, else from the
// spec (replicas, offload_routing).
void AddRoutingNote(const std::vector<const ScenarioRun*>& with_results, v1::Validity* validity);

}  // namespace kvbench::results
