#pragma once

#include <string>

#include "common/json/proto_json.h"

namespace kvbench {

// Field checks shared by the daemon config validators; each adds a FieldError naming `field`.

// Non-empty absolute path.
void CheckAbsolutePath(FieldErrors* errors, const std::string& field, const std::string& path,
                       bool required);
// host:port (port 0 allowed only when `allow_port_zero`).
void CheckHostPort(FieldErrors* errors, const std::string& field, const std::string& address,
                   bool allow_port_zero);
// (0, max] seconds.
void CheckSeconds(FieldErrors* errors, const std::string& field, double seconds, double max);

}  // namespace kvbench
