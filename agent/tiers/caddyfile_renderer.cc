// RenderCaddyfile: the load balancer in front of 2+ replicas, as reference/caddy.md verified it
// on Debian's Caddy 2.6.2.

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/tiers/tier_renderer.h"

namespace kvbench::agent::tiers {
namespace {

// Caddy's lb_policy for RoutesSticky's answer: kv-runner sends X-User-Id on every request.
std::string LbPolicy(bool sticky) { return sticky ? "header X-User-Id" : "least_conn"; }

// Go duration text ("10s", "1m30s"): what Caddy parses.
std::string GoDuration(absl::Duration duration) { return absl::FormatDuration(duration); }

}  // namespace

bool RoutesSticky(const v1::JobSpec& job, v1::Tier tier) {
  return tier == v1::GPU || job.offload_routing() == v1::OFFLOAD_ROUTING_STICKY;
}

std::string ScenarioRouting(const v1::JobSpec& job, v1::Tier tier) {
  const int replicas = job.has_replicas() ? job.replicas() : 1;
  if (replicas < 2) return "";
  return RoutesSticky(job, tier) ? kStickyRouting : kLeastConnRouting;
}

std::string CaddyUpstreamVariable(int index) { return absl::StrCat("KV_REPLICA_", index); }

std::map<std::string, std::string> CaddyUpstreamEnv(const ScenarioWiring& wiring) {
  std::map<std::string, std::string> env;
  for (size_t i = 0; i < wiring.replicas.size(); ++i) {
    const Endpoint& replica = wiring.replicas[i];
    env[CaddyUpstreamVariable(static_cast<int>(i))] = absl::StrCat(replica.host, ":", replica.port);
  }
  return env;
}

std::string RenderCaddyfile(const v1::JobSpec& job, const v1::Scenario& scenario,
                            const ScenarioWiring& wiring, absl::Duration request_timeout) {
  std::vector<std::string> upstreams;
  std::vector<std::string> addresses;
  for (size_t i = 0; i < wiring.replicas.size(); ++i) {
    upstreams.push_back(absl::StrCat("{env.", CaddyUpstreamVariable(static_cast<int>(i)), "}"));
    addresses.push_back(absl::StrCat(wiring.replicas[i].host, ":", wiring.replicas[i].port));
  }
  std::string out;
  absl::StrAppend(&out, "# kvbench scenario ", scenario.scenario_id(), ", tier ",
                  v1::Tier_Name(scenario.tier()), ": Caddy in front of ", upstreams.size(),
                  " replicas (reference/caddy.md)\n");
  absl::StrAppend(&out, "# upstreams ", absl::StrJoin(upstreams, " "), " = ",
                  absl::StrJoin(addresses, " "), " (CaddyUpstreamEnv)\n");
  absl::StrAppend(&out,
                  "{\n"
                  "\tadmin 127.0.0.1:",
                  wiring.proxy_admin_port, "\n",
                  "\tauto_https off\n"
                  "\t# the default grace period is eternal: SIGTERM would wait for every request\n"
                  "\tgrace_period ",
                  GoDuration(kCaddyGracePeriod), "\n",
                  "\tservers {\n"
                  "\t\tmetrics\n"
                  "\t}\n"
                  "}\n\n");
  // A host in the site address would become a Host matcher (a silent empty 200 for any other
  // Host header): listen on every name of the port, bound to the proxy's address.
  absl::StrAppend(&out, "http://:", wiring.proxy.port, " {\n", "\tbind ", wiring.proxy.host, "\n",
                  "\treverse_proxy ", absl::StrJoin(upstreams, " "), " {\n", "\t\tlb_policy ",
                  LbPolicy(RoutesSticky(job, scenario.tier())), "\n", "\t\thealth_uri /health\n",
                  "\t\thealth_interval ", GoDuration(kCaddyHealthInterval), "\n",
                  "\t\thealth_timeout ", GoDuration(kCaddyHealthTimeout), "\n",
                  "\t\tfail_duration ", GoDuration(kCaddyFailDuration), "\n", "\t\tmax_fails ",
                  kCaddyMaxFails, "\n");
  // No transport block: 2.6.2 has no read/write/response-header timeout unless one is set, so
  // nothing here cuts a request before the client's own timeout; dial_timeout (3 s) only bounds
  // the connect. No flush_interval (SSE is flushed anyway; -1 stops cancelling on disconnect),
  // no lb_try_duration/lb_retries, no buffer_requests (both break POST bodies in 2.6.2).
  absl::StrAppend(&out, "\t\t# no proxy timeout: requests may run ", GoDuration(request_timeout),
                  " (the client's limit)\n",
                  "\t}\n"
                  "}\n");
  return out;
}

}  // namespace kvbench::agent::tiers
