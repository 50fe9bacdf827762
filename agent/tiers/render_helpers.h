#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kvbench::agent::tiers {

// A number as JSON: whole values as integers (8, not 8.0), others in their shortest exact form.
nlohmann::ordered_json JsonNumber(double value);

// JsonNumber(value) as command-line text: "8", "0.92", "0.01".
std::string FormatNumber(double value);

}  // namespace kvbench::agent::tiers
