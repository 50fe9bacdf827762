// Fuzz target for parquet::ParquetReader: any bytes in, opened from memory and every row read,
// with no crash and no sanitizer report. Invariants: a reader that opens reports a non-negative
// row count, hands out no more rows than that, each row a JSON object with one member per
// top-level field, printable as JSON text (CatRows' form).
//
// Built two ways (tests/fuzz/CMakeLists.txt): with standalone_fuzz_driver.cc as a ctest test over
// the parquet-testing data files (never copied: the driver reads the shared folder), and with
// clang's libFuzzer (-DKV_FUZZ=ON) for coverage-guided runs.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/parquet/parquet_reader.h"

namespace kvbench::parquet {
namespace {

void Require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "parquet_reader_fuzz: invariant broken: %s\n", what);
  std::abort();
}

void ReadAll(std::string bytes) {
  absl::StatusOr<std::unique_ptr<ParquetReader>> reader =
      ParquetReader::OpenFromMemory(std::move(bytes));
  if (!reader.ok()) {
    Require(!reader.status().message().empty(), "error message not empty");
    return;
  }
  Require((*reader)->num_rows() >= 0, "row count not negative");
  const size_t fields = (*reader)->schema().root().children.size();
  int64_t rows = 0;
  Json row;
  while (true) {
    absl::StatusOr<bool> more = (*reader)->Next(&row);
    if (!more.ok()) {
      Require(!more.status().message().empty(), "error message not empty");
      return;
    }
    if (!*more) break;
    ++rows;
    Require(row.is_object(), "a row is a JSON object");
    Require(row.size() <= fields, "a row has at most one member per top-level field");
    (void)row.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  Require(rows == (*reader)->num_rows(), "rows read equal num_rows");
}

}  // namespace
}  // namespace kvbench::parquet

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kvbench::parquet::ReadAll(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
