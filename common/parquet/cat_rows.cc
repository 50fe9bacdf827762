#include "common/parquet/cat_rows.h"

#include "common/parquet/parquet_reader.h"
#include "common/status/status_macros.h"

namespace kvbench::parquet {

absl::Status CatRows(const std::string& path, int64_t limit, std::ostream& out) {
  KV_ASSIGN_OR_RETURN(std::unique_ptr<ParquetReader> reader, ParquetReader::Open(path));
  Json row;
  for (int64_t count = 0; limit < 0 || count < limit; ++count) {
    KV_ASSIGN_OR_RETURN(bool more, reader->Next(&row));
    if (!more) break;
    out << row.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
    if (!out) return absl::UnavailableError("cannot write the rows");
  }
  return absl::OkStatus();
}

}  // namespace kvbench::parquet
