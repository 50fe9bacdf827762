#include "common/json/validated_json.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace kvbench {
namespace {

// The root of a field path: "concurrency[1]" → "concurrency", "dataset.code" → "dataset".
absl::string_view RootOf(absl::string_view field) {
  size_t end = field.find_first_of(".[");
  return end == absl::string_view::npos ? field : field.substr(0, end);
}

}  // namespace

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

FieldErrors MergeFieldErrors(const FieldErrors& conversion, const FieldErrors& semantic) {
  FieldErrors merged = conversion;
  for (const FieldError& error : semantic.errors()) {
    bool echo = false;
    for (const FieldError& cause : conversion.errors()) {
      if (!cause.field.empty() && RootOf(cause.field) == RootOf(error.field)) echo = true;
    }
    if (!echo) merged.Add(error.field, error.message);
  }
  return merged;
}

}  // namespace kvbench
