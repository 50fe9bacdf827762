#pragma once

#include <cstdint>

#include "absl/strings/string_view.h"

namespace kvbench {

// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320; zlib's crc32) of `data`: "123456789" is
// 0xCBF43926. Used for the agent's event spool records and Parquet's page checksums.
uint32_t Crc32(absl::string_view data);

}  // namespace kvbench
