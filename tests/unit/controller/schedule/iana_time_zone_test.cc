// A schedule's time zone is an IANA name, never a path: names shaped like tzdata's load, and
// paths, "../", FIFOs and other non-zone files are refused before anything is opened (a FIFO
// opened for reading blocks until a writer comes, and with it the controller's event loop).

#include "controller/schedule/iana_time_zone.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "absl/time/civil_time.h"
#include "tests/support/temp_dir.h"

namespace kvbench::controller {
namespace {

// Sets TZDIR for one scope.
class ScopedTzdir {
 public:
  explicit ScopedTzdir(const std::string& dir) {
    const char* old = getenv("TZDIR");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("TZDIR", dir.c_str(), 1);
  }
  ~ScopedTzdir() {
    if (had_) {
      setenv("TZDIR", old_.c_str(), 1);
    } else {
      unsetenv("TZDIR");
    }
  }

 private:
  bool had_ = false;
  std::string old_;
};

TEST_CASE("zone names shaped like tzdata's are names", "[schedule][zone]") {
  for (const char* name :
       {"UTC", "Europe/Berlin", "Etc/GMT+5", "Etc/GMT-14", "America/Port-au-Prince",
        "America/Argentina/Buenos_Aires", "EST5EDT", "GMT0"}) {
    INFO(name);
    CHECK(CheckIanaZoneName(name).ok());
  }
}

TEST_CASE("paths and odd strings are not zone names, and say why", "[schedule][zone]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/tmp/zone-fifo", "starts with a letter, not a path"},
      {"../../../tmp/zone-fifo", "starts with a letter, not a path"},
      {"Europe/../../../../tmp/x", "the character '.'"},
      {"Europe//Berlin", "an empty component"},
      {"Europe/", "an empty component"},
      {"Europe/Berlin\n", "the character '\\n'"},
      {"Europe/Ber lin", "the character ' '"},
      {std::string("Europe/Berlin\0x", 15), "the character '\\x00'"},
      {std::string(65, 'A'), "longer than 64 characters"},
      {"localtime", "a host setting, not a zone"},
      {"", "it is empty"},
  };
  for (const auto& [name, why] : cases) {
    INFO(name);
    absl::Status status = CheckIanaZoneName(name);
    REQUIRE_FALSE(status.ok());
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(status.message()), Catch::Contains("is not an IANA time zone name"));
    CHECK_THAT(std::string(status.message()), Catch::Contains(why));
  }
}

TEST_CASE("a known zone loads with its rules", "[schedule][zone]") {
  absl::StatusOr<absl::TimeZone> berlin = LoadIanaTimeZone("Europe/Berlin");
  REQUIRE(berlin.ok());
  // CEST in July: 12:00 UTC is 14:00 in Berlin.
  const absl::Time noon =
      absl::FromCivil(absl::CivilSecond(2026, 7, 1, 12, 0, 0), absl::UTCTimeZone());
  CHECK(absl::ToCivilHour(noon, *berlin) == absl::CivilHour(2026, 7, 1, 14));
  CHECK(LoadIanaTimeZone("UTC").ok());
}

TEST_CASE("a name that is not a zone file is refused, never opened", "[schedule][zone]") {
  testing::TempDir dir;
  REQUIRE(mkdir(dir.File("Evil").c_str(), 0700) == 0);
  REQUIRE(mkfifo(dir.File("Evil/Fifo").c_str(), 0600) == 0);
  REQUIRE(mkdir(dir.File("Evil/Folder").c_str(), 0700) == 0);
  ScopedTzdir tzdir(dir.path());
  // Returns at once: were the FIFO opened, this would block until a writer came.
  const auto start = std::chrono::steady_clock::now();
  for (const char* name : {"Evil/Fifo", "Evil/Folder", "Mars/Olympus_Mons"}) {
    INFO(name);
    absl::StatusOr<absl::TimeZone> zone = LoadIanaTimeZone(name);
    REQUIRE_FALSE(zone.ok());
    CHECK_THAT(std::string(zone.status().message()),
               Catch::Contains("is not an IANA time zone known to this host (no zone file " +
                               dir.File(name)));
  }
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  // A FIFO given as a path is refused by its shape, before any file system call.
  absl::StatusOr<absl::TimeZone> path = LoadIanaTimeZone(dir.File("Evil/Fifo"));
  REQUIRE_FALSE(path.ok());
  CHECK_THAT(std::string(path.status().message()), Catch::Contains("not a path"));
}

}  // namespace
}  // namespace kvbench::controller
