#pragma once

#include <optional>
#include <string>

namespace kvbench::sim::lmcache::testing {

// The value of one series in Prometheus text, e.g. Series(text, "lmcache_mp_l1_read_chunks_total")
// or Series(text, "lmcache_mp_lookup_hit_tokens_total{model_name=\"m\"}"); nullopt if absent.
std::optional<double> Series(const std::string& text, const std::string& series);
// Like Series, but 0 when absent (a counter not yet created).
double ValueOr0(const std::string& text, const std::string& series);
// True when the text declares a family of that name ("# TYPE name ...").
bool HasFamily(const std::string& text, const std::string& name);

}  // namespace kvbench::sim::lmcache::testing
