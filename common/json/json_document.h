#pragma once

// The one way kvbench turns untrusted JSON text into a document: never an exception,
// never a crash. Specs, daemon configs and the result files kvctl reads back go through it.

#include <cstddef>
#include <nlohmann/json.hpp>

#include "absl/strings/string_view.h"
#include "common/json/proto_json.h"

namespace kvbench {

struct JsonDocumentOptions {
  // A key given twice in one object is an error (nlohmann keeps the last one silently).
  bool reject_duplicate_keys = true;
};

// Parses `text` into `*out`. Every problem is a FieldError, in document order:
//  - a syntax error: field "" and "invalid JSON: line L, column C: ..." (parsing stops there);
//  - a number beyond a double's range (1e999): its path, "1e999 is out of range (a number must
//    fit a 64-bit double)" (nlohmann throws out_of_range.406 for it, even when told not to
//    throw: json_sax_dom_parser rethrows what parse_error hands it);
//  - a duplicate key: its path, "duplicate key: given more than once in this object".
// `*out` is set only when there is no error.
FieldErrors ParseJsonDocument(absl::string_view text, nlohmann::ordered_json* out,
                              JsonDocumentOptions options = {});

}  // namespace kvbench
