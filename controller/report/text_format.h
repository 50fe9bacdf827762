#pragma once

// Text helpers of the HTML report: escaping and the one number format every table, tick and hover
// title uses (deterministic, locale-free).

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace kvbench::report {

// `text` safe inside HTML/SVG text and attribute values: & < > " ' escaped.
std::string HtmlEscape(absl::string_view text);

// A value for people: integers without decimals, 3 significant digits otherwise ("1234",
// "12.3", "0.0457"); "NaN"/"inf" never reach here (callers skip non-finite values).
std::string FormatNumber(double value);

// FormatNumber, or the em-dash entity for a null ("not measured", never 0).
std::string FormatOptional(std::optional<double> value);

// An axis tick label at a step of `step`: as many decimals as the step needs ("0.25", "1500").
std::string FormatTick(double value, double step);

}  // namespace kvbench::report
