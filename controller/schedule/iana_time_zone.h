#pragma once
// A schedule's time zone by its IANA name only ("Europe/Berlin", "Etc/GMT+5", "UTC"), resolved
// from the system's zone database. A client's string never reaches the loader as a path: absl
// opens whatever file a name leads to (an absolute path, "../", a FIFO that blocks the open and
// with it the controller's event loop), so a name is checked by its characters first, and the
// file it names must be a regular file in the zone database before absl reads it.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace kvbench::controller {

// The zone database folder absl reads: $TZDIR, else /usr/share/zoneinfo.
std::string ZoneDatabaseDir();

// OK when `name` is shaped as an IANA zone name: components of letters, digits, '_', '-' and
// '+' separated by single '/', the first character a letter, at most 64 characters; the error
// names what is wrong. Pure: no file is looked at.
absl::Status CheckIanaZoneName(absl::string_view name);

// The zone `name`, which CheckIanaZoneName accepts and which is a regular file under
// ZoneDatabaseDir() ("UTC" needs no file); InvalidArgument naming the zone otherwise.
absl::StatusOr<absl::TimeZone> LoadIanaTimeZone(absl::string_view name);

}  // namespace kvbench::controller
