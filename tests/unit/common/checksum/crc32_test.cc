#include "common/checksum/crc32.h"

#include <catch2/catch.hpp>
#include <string>

namespace kvbench {
namespace {

TEST_CASE("Crc32 gives the IEEE CRC-32 check values", "[checksum]") {
  struct Case {
    std::string data;
    uint32_t crc;
  };
  const Case cases[] = {
      {"", 0x00000000u},
      {"123456789", 0xCBF43926u},  // the standard check value of CRC-32/ISO-HDLC
      {"The quick brown fox jumps over the lazy dog", 0x414FA339u},
      {std::string("\0\0\0\0", 4), 0x2144DF1Cu},
  };
  for (const Case& c : cases) {
    INFO(c.data);
    CHECK(Crc32(c.data) == c.crc);
  }
}

}  // namespace
}  // namespace kvbench
