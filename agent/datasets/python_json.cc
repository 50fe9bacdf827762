#include "agent/datasets/python_json.h"

namespace kvbench::datasets {
namespace {

void Append(const nlohmann::ordered_json& value, std::string& out) {
  if (value.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      out += nlohmann::ordered_json(it.key()).dump(-1, ' ', /*ensure_ascii=*/true);
      out += ": ";
      Append(it.value(), out);
    }
    out += '}';
  } else if (value.is_array()) {
    out += '[';
    for (size_t i = 0; i < value.size(); ++i) {
      if (i > 0) out += ", ";
      Append(value[i], out);
    }
    out += ']';
  } else if (value.is_null()) {
    out += "null";
  } else {
    out += value.dump(-1, ' ', /*ensure_ascii=*/true);
  }
}

}  // namespace

std::string PythonJsonDumps(const nlohmann::ordered_json& value) {
  std::string out;
  Append(value, out);
  return out;
}

}  // namespace kvbench::datasets
