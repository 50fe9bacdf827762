#pragma once

// How the tables read back the protos they store serialized in BLOB (PostgreSQL: BYTEA) columns.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace kvbench::controller::store_internal {

// A proto stored as a BLOB; DATA_LOSS naming `what` when it does not parse.
template <typename Message>
absl::Status ParseBlob(const std::string& blob, Message& message, absl::string_view what) {
  if (!message.ParseFromString(blob)) {
    return absl::DataLossError(
        absl::StrCat(what, ": stored ", message.GetTypeName(), " does not parse"));
  }
  return absl::OkStatus();
}

}  // namespace kvbench::controller::store_internal
