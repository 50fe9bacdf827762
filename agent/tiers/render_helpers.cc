#include "agent/tiers/render_helpers.h"

#include <cmath>
#include <cstdint>

namespace kvbench::agent::tiers {
namespace {

// Doubles hold every integer up to 2^53 exactly.
constexpr double kMaxExactInteger = 9007199254740992.0;

}  // namespace

nlohmann::ordered_json JsonNumber(double value) {
  if (std::isfinite(value) && std::trunc(value) == value && std::fabs(value) <= kMaxExactInteger) {
    return static_cast<int64_t>(value);
  }
  return value;
}

std::string FormatNumber(double value) { return JsonNumber(value).dump(); }

}  // namespace kvbench::agent::tiers
