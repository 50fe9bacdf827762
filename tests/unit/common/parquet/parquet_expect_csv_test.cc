// Files whose expected rows parquet-testing ships as *_expect.csv (DELTA_* encodings): every row
// and column compared as text, an empty unquoted CSV field meaning null.
#include <catch2/catch.hpp>
#include <fstream>
#include <optional>
#include <sstream>

#include "tests/unit/common/parquet/parquet_test_files.h"

namespace kvbench::parquet {
namespace {

using testing::DataFile;
using testing::ReadAllRows;

// One CSV line's fields: quoted ("" for a quote) or bare; nullopt for an empty bare field.
std::vector<std::optional<std::string>> SplitCsv(const std::string& line) {
  std::vector<std::optional<std::string>> fields;
  size_t i = 0;
  while (i <= line.size()) {
    std::string field;
    bool quoted = false;
    if (i < line.size() && line[i] == '"') {
      quoted = true;
      for (++i; i < line.size(); ++i) {
        if (line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          ++i;
        } else if (line[i] == '"') {
          ++i;
          break;
        } else {
          field += line[i];
        }
      }
    } else {
      while (i < line.size() && line[i] != ',') field += line[i++];
    }
    if (!quoted && field.empty()) {
      fields.push_back(std::nullopt);
    } else {
      fields.push_back(field);
    }
    ++i;  // the comma
  }
  return fields;
}

std::optional<std::string> AsText(const Json& value) {
  if (value.is_null()) return std::nullopt;
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

void CheckAgainstCsv(const std::string& name) {
  absl::StatusOr<std::vector<Json>> rows = ReadAllRows(DataFile(name + ".parquet"));
  INFO(name << ": " << rows.status());
  REQUIRE(rows.ok());
  std::ifstream csv(DataFile(name + "_expect.csv"));
  std::string line;
  std::getline(csv, line);  // the header
  size_t row = 0;
  while (std::getline(csv, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    REQUIRE(row < rows->size());
    const std::vector<std::optional<std::string>> expected = SplitCsv(line);
    const Json& actual = (*rows)[row];
    REQUIRE(expected.size() == actual.size());
    size_t column = 0;
    for (const auto& item : actual.items()) {
      INFO("row " << row << " column " << item.key());
      CHECK(AsText(item.value()) == expected[column++]);
    }
    ++row;
  }
  CHECK(row == rows->size());
}

TEST_CASE("DELTA_BINARY_PACKED at every bit width (delta_binary_packed_expect.csv)",
          "[parquet][delta]") {
  CheckAgainstCsv("delta_binary_packed");
}

TEST_CASE("DELTA_BYTE_ARRAY (delta_byte_array_expect.csv)", "[parquet][delta]") {
  CheckAgainstCsv("delta_byte_array");
}

TEST_CASE("DELTA encodings in optional and required columns", "[parquet][delta]") {
  CheckAgainstCsv("delta_encoding_optional_column");
  CheckAgainstCsv("delta_encoding_required_column");
}

}  // namespace
}  // namespace kvbench::parquet
