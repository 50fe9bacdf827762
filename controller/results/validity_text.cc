#include "controller/results/validity_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kvbench::results {

std::string WithCommas(int64_t value) {
  std::string digits = absl::StrCat(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string TierName(v1::Tier tier) {
  const std::string& name = v1::Tier_Name(tier);
  return name.empty() ? absl::StrCat("tier ", static_cast<int>(tier)) : name;
}

std::string Percent(double fraction) { return absl::StrFormat("%.1f%%", fraction * 100); }

}  // namespace kvbench::results
