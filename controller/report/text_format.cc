#include "controller/report/text_format.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace kvbench::report {

std::string HtmlEscape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string FormatNumber(double value) {
  if (!std::isfinite(value)) return "&#8212;";
  const double magnitude = std::fabs(value);
  if (value == std::round(value) && magnitude < 1e15) return absl::StrFormat("%.0f", value);
  if (magnitude >= 100) return absl::StrFormat("%.0f", value);
  if (magnitude >= 10) return absl::StrFormat("%.1f", value);
  if (magnitude >= 1) return absl::StrFormat("%.2f", value);
  return absl::StrFormat("%.3g", value);
}

std::string FormatOptional(std::optional<double> value) {
  if (!value.has_value()) return "&#8212;";
  return FormatNumber(*value);
}

std::string FormatTick(double value, double step) {
  int decimals = 0;
  if (step > 0 && step < 1) decimals = static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  decimals = std::clamp(decimals, 0, 6);
  if (std::fabs(value) < step * 1e-9) value = 0;  // no "-0"
  return absl::StrFormat("%.*f", decimals, value);
}

}  // namespace kvbench::report
