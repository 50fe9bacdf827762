#pragma once

// Decoding of a page's (or dictionary page's) values into JSON values: PLAIN for every physical
// type, RLE for BOOLEAN, PLAIN_DICTIONARY / RLE_DICTIONARY indices into a dictionary,
// DELTA_BINARY_PACKED (INT32/INT64), DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
// BYTE_STREAM_SPLIT (FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY).
//
// JSON mapping: BOOLEAN → bool; INT32/INT64 → integer; FLOAT/DOUBLE → number; BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY → string of the raw bytes (UTF8/STRING or not); INT96 → integer
// nanoseconds since the Unix epoch (the Impala/Spark timestamp layout), or where that overflows
// int64 the string "INT96(julian_day=D,nanos=N)".

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace kvbench::parquet {

struct SchemaNode;

using Json = nlohmann::ordered_json;

// Most bytes of strings one page may expand to through a dictionary or DELTA_BYTE_ARRAY's shared
// prefixes; more is RESOURCE_EXHAUSTED (a small hostile page could otherwise ask for terabytes).
inline constexpr size_t kMaxExpandedPageBytes = size_t{256} << 20;

// Appends `count` values of `leaf`'s type encoded with `encoding` in `data`. `dictionary` is the
// column chunk's dictionary (nullptr when none was read). Other encodings are
// UNIMPLEMENTED with the encoding's name and the column path.
absl::Status DecodeValues(const SchemaNode& leaf, int32_t encoding, absl::string_view data,
                          size_t count, const std::vector<Json>* dictionary,
                          std::vector<Json>* out);

}  // namespace kvbench::parquet
