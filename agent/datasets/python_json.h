#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kvbench::datasets {

// Serializes `value` byte for byte as Python's json.dumps(value) with its defaults does: keys in
// document order, ", " and ": " separators, non-ASCII escaped as \uXXXX. tau2-bench stores tool
// call arguments as objects and its OpenAI requests carried json.dumps(arguments); rebuilding that
// string exactly keeps our prompts identical to the recorded ones (and to the derived JSONL).
std::string PythonJsonDumps(const nlohmann::ordered_json& value);

}  // namespace kvbench::datasets
