#include "controller/schedule/iana_time_zone.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace kvbench::controller {
namespace {

constexpr size_t kMaxZoneNameLength = 64;  // the longest in tzdata 2025 is 32

bool IsZoneNameCharacter(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '+';
}

absl::Status NotAZone(absl::string_view name, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("time_zone: \"", absl::CHexEscape(name), "\" is not an IANA time zone name (",
                   why, "; e.g. \"UTC\", \"Europe/Berlin\", \"America/New_York\")"));
}

}  // namespace

std::string ZoneDatabaseDir() {
  const char* tzdir = std::getenv("TZDIR");
  return tzdir != nullptr && tzdir[0] != '\0' ? tzdir : "/usr/share/zoneinfo";
}

absl::Status CheckIanaZoneName(absl::string_view name) {
  if (name.empty()) return NotAZone(name, "it is empty");
  if (name.size() > kMaxZoneNameLength) {
    return NotAZone(name.substr(0, kMaxZoneNameLength),
                    absl::StrCat("longer than ", kMaxZoneNameLength, " characters"));
  }
  if (!absl::ascii_isalpha(static_cast<unsigned char>(name[0]))) {
    return NotAZone(name, "a zone name starts with a letter, not a path");
  }
  bool component_start = true;
  for (char c : name) {
    if (c == '/') {
      if (component_start) return NotAZone(name, "an empty component");
      component_start = true;
      continue;
    }
    if (!IsZoneNameCharacter(c)) {
      return NotAZone(name, absl::StrCat("the character '", absl::CHexEscape(std::string(1, c)),
                                         "' is not in zone names"));
    }
    component_start = false;
  }
  if (component_start) return NotAZone(name, "an empty component");
  if (name == "localtime" || name == "posixrules") {
    return NotAZone(name, "a host setting, not a zone");
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::TimeZone> LoadIanaTimeZone(absl::string_view name) {
  if (absl::Status shape = CheckIanaZoneName(name); !shape.ok()) return shape;
  absl::TimeZone zone;
  if (name == "UTC") {
    absl::LoadTimeZone("UTC", &zone);  // built into absl, no file
    return zone;
  }
  // What absl would open, checked first: a regular file (symlinks inside the database followed,
  // as tzdata's links are), so nothing but a zone file is ever opened.
  const std::string path = absl::StrCat(ZoneDatabaseDir(), "/", name);
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "time_zone: \"", name, "\" is not an IANA time zone known to this host (no zone file ",
        path, "; e.g. \"UTC\", \"Europe/Berlin\", \"America/New_York\"; is tzdata installed?)"));
  }
  if (!absl::LoadTimeZone(std::string(name), &zone)) {
    return absl::InvalidArgumentError(
        absl::StrCat("time_zone: \"", name, "\": ", path, " is not a zone file absl can read"));
  }
  return zone;
}

}  // namespace kvbench::controller
