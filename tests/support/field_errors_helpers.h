#pragma once

// Helpers of the tests of JSON loading and config validation (common/json/proto_json.h).

#include <catch2/catch.hpp>
#include <string>

#include "common/json/proto_json.h"

namespace kvbench::testing {

// The fields named by `errors`, each followed by "|": what a user reads first in the messages.
inline std::string Fields(const FieldErrors& errors) {
  std::string out;
  for (const FieldError& error : errors.errors()) out += error.field + "|";
  return out;
}

// `json` parsed into a T; the test fails when it does not parse.
template <typename T>
T Parse(const char* json) {
  T message;
  FieldErrors errors = ParseJsonToProto(json, &message);
  REQUIRE(errors.empty());
  return message;
}

}  // namespace kvbench::testing
