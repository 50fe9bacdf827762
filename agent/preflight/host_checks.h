#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/preflight/preflight_probes.h"
#include "kvbench/v1/job.pb.h"
#include "kvbench/v1/release.pb.h"

namespace kvbench::agent::preflight {

// Loopback addresses a scenario's children listen on: the cache server on 127.0.0.1, replica i
// on 127.0.0.(2 + i) (agent/scenario/scenario_wiring.h).
inline constexpr const char* kChildHosts[] = {"127.0.0.1", "127.0.0.2"};

// ports: a bind to port 0 on each of kChildHosts (FAIL, every tier, when one fails), and
// `listen_address` (host:port, "" or port 0: not checked) free (FAIL naming who holds it).
v1::PreflightCheck CheckPorts(const std::string& listen_address, PreflightProbes& probes);

// model_roots: with a spec whose model is a path, that it is under a root
// (agent/scenario/model_roots.h) and a checkpoint folder (config.json) — FAIL, every tier,
// otherwise; without one, each root a readable folder (a missing one: WARN) and the checkpoints
// in it; SKIP without roots.
v1::PreflightCheck CheckModelRoots(const std::vector<std::string>& roots,
                                   const std::optional<v1::JobSpec>& spec);

// datasets: with a spec, its dataset resolved offline (datasets::DatasetResolver over `roots`);
// not here: a FAIL, or a WARN when `pulls_registry_datasets` and the registry knows it (pulled at
// scenario start, which needs the network or the mirror). Without a spec, which of the
// registry's datasets resolve offline (none: WARN).
v1::PreflightCheck CheckDatasets(const std::vector<std::string>& roots, bool allow_user_paths,
                                 bool pulls_registry_datasets,
                                 const std::optional<v1::JobSpec>& spec);

}  // namespace kvbench::agent::preflight
