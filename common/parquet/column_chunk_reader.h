#pragma once

// Decodes one column chunk (the bytes of one leaf column in one row group): its optional
// dictionary page and its data pages (v1 and v2), each checked against its CRC when the writer
// stored one, into definition levels, repetition levels and values.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/parquet/metadata.h"
#include "common/parquet/schema.h"
#include "common/parquet/value_decoder.h"

namespace kvbench::parquet {

// Most level entries (values and nulls) accepted in one column chunk; more is RESOURCE_EXHAUSTED
// (it bounds the memory a corrupt or hostile header can make the reader allocate).
inline constexpr int64_t kMaxValuesPerColumnChunk = int64_t{1} << 25;

struct ColumnData {
  std::vector<int16_t> definition_levels;
  std::vector<int16_t> repetition_levels;
  std::vector<Json> values;  // one per level entry; null where definition < max
};

class ColumnChunkReader {
 public:
  static absl::StatusOr<ColumnData> Read(const SchemaNode& leaf, const ColumnMetaData& meta,
                                         absl::string_view chunk);

 private:
  ColumnChunkReader(const SchemaNode& leaf, const ColumnMetaData& meta)
      : leaf_(leaf), meta_(meta) {}

  absl::Status ReadPages(absl::string_view chunk);
  absl::Status ReadDictionaryPage(const PageHeader& header, absl::string_view page);
  absl::Status ReadDataPageV1(const PageHeader& header, absl::string_view page);
  absl::Status ReadDataPageV2(const PageHeader& header, absl::string_view page);
  // Levels of `count` entries, RLE-encoded in `data` (no length prefix).
  absl::Status DecodeLevels(absl::string_view data, size_t count, int16_t max_level,
                            std::vector<int16_t>* out);
  // Reads the v1 page's 4-byte length-prefixed levels from the front of *data.
  absl::Status DecodeV1Levels(absl::string_view* data, int32_t encoding, size_t count,
                              int16_t max_level, std::vector<int16_t>* out);
  // Decodes the values and appends the page's entries to data_.
  absl::Status AppendPage(int32_t encoding, absl::string_view values, size_t count,
                          std::vector<int16_t> definition, std::vector<int16_t> repetition);
  absl::Status CheckCrc(const PageHeader& header, absl::string_view page) const;
  absl::Status Corrupt(absl::string_view what) const;

  const SchemaNode& leaf_;
  const ColumnMetaData& meta_;
  std::optional<std::vector<Json>> dictionary_;
  ColumnData data_;
};

}  // namespace kvbench::parquet
