#include "common/checksum/crc32.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace kvbench {

uint32_t Crc32(absl::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes a uInt length: feed larger inputs in pieces.
  constexpr size_t kMaxPiece = std::numeric_limits<uInt>::max();
  while (!data.empty()) {
    const size_t piece = std::min(data.size(), kMaxPiece);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(piece));
    data.remove_prefix(piece);
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace kvbench
