// Flat files of parquet-testing: documented values, codecs, page versions, dictionary vs plain.
#include "common/parquet/parquet_reader.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <sstream>

#include "common/parquet/cat_rows.h"
#include "tests/unit/common/parquet/parquet_test_files.h"

namespace kvbench::parquet {
namespace {

using testing::Column;
using testing::DataFile;
using testing::ReadAllRows;

std::vector<Json> MustRead(const std::string& name) {
  absl::StatusOr<std::vector<Json>> rows = ReadAllRows(DataFile(name));
  INFO(name << ": " << rows.status());
  REQUIRE(rows.ok());
  return *rows;
}

TEST_CASE("alltypes_plain.parquet has the README's 8 rows", "[parquet]") {
  absl::StatusOr<std::unique_ptr<ParquetReader>> reader =
      ParquetReader::Open(DataFile("alltypes_plain.parquet"));
  REQUIRE(reader.ok());
  CHECK((*reader)->num_rows() == 8);
  CHECK((*reader)->schema().leaves().size() == 11);
  CHECK((*reader)->schema().leaf(9).path == "string_col");

  const std::vector<Json> rows = MustRead("alltypes_plain.parquet");
  CHECK(Column(rows, "id") == Json::parse("[4,5,6,7,2,3,0,1]"));
  CHECK(Column(rows, "bool_col") == Json::parse("[true,false,true,false,true,false,true,false]"));
  CHECK(Column(rows, "tinyint_col") == Json::parse("[0,1,0,1,0,1,0,1]"));
  CHECK(Column(rows, "bigint_col") == Json::parse("[0,10,0,10,0,10,0,10]"));
  CHECK(Column(rows, "double_col") == Json::parse("[0,10.1,0,10.1,0,10.1,0,10.1]"));
  CHECK(Column(rows, "float_col")[1].get<double>() == Approx(1.1));
  CHECK(Column(rows, "string_col") == Json::parse(R"(["0","1","0","1","0","1","0","1"])"));
  CHECK(Column(rows, "date_string_col") ==
        Json::parse(R"(["03/01/09","03/01/09","04/01/09","04/01/09","02/01/09","02/01/09",
                        "01/01/09","01/01/09"])"));
  // INT96 as nanoseconds since the epoch: 2009-03-01 00:00:00 and 00:01:00.
  CHECK(rows[0]["timestamp_col"] == 1235865600000000000);
  CHECK(rows[1]["timestamp_col"] == 1235865660000000000);
}

TEST_CASE("SNAPPY and dictionary variants of alltypes agree with the plain file", "[parquet]") {
  const std::vector<Json> plain = MustRead("alltypes_plain.parquet");
  const std::vector<Json> snappy = MustRead("alltypes_plain.snappy.parquet");
  const std::vector<Json> dictionary = MustRead("alltypes_dictionary.parquet");
  CHECK(Column(snappy, "id") == Json::parse("[6,7]"));
  CHECK(Column(dictionary, "id") == Json::parse("[0,1]"));
  CHECK(snappy[0] == plain[2]);
  CHECK(dictionary[1] == plain[7]);
}

TEST_CASE("tiny dictionary pages read like tiny plain pages", "[parquet]") {
  const std::vector<Json> dictionary = MustRead("alltypes_tiny_pages.parquet");
  const std::vector<Json> plain = MustRead("alltypes_tiny_pages_plain.parquet");
  REQUIRE(dictionary.size() == 7300);
  CHECK(dictionary == plain);
  CHECK(dictionary[0]["id"] == 122);
  CHECK(dictionary[0]["string_col"] == "2");
}

TEST_CASE("page CRCs are checked and matching pages read", "[parquet]") {
  const std::vector<Json> uncompressed = MustRead("datapage_v1-uncompressed-checksum.parquet");
  const std::vector<Json> snappy = MustRead("datapage_v1-snappy-compressed-checksum.parquet");
  CHECK(uncompressed.size() == 5120);
  CHECK(uncompressed == snappy);
  CHECK(MustRead("plain-dict-uncompressed-checksum.parquet").size() == 1000);
  const std::vector<Json> v2 = MustRead("rle-dict-snappy-checksum.parquet");
  CHECK(v2.size() == 1000);
  CHECK(v2[999]["long_field"] == 0);
}

TEST_CASE("GZIP with concatenated members", "[parquet]") {
  const std::vector<Json> rows = MustRead("concatenated_gzip_members.parquet");
  REQUIRE(rows.size() == 513);
  for (size_t i = 0; i < rows.size(); ++i)
    CHECK(rows[i]["long_col"] == static_cast<int64_t>(i + 1));
}

TEST_CASE("ZSTD pages and nested structs (nested_structs.rust.parquet)", "[parquet]") {
  const std::vector<Json> rows = MustRead("nested_structs.rust.parquet");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["roll_num"]["count"] == 495);
  CHECK(rows[0]["PC_CUR"]["min"] == 115);
  CHECK(rows[0]["PC_CUR"]["max"] == 742);
}

TEST_CASE("data page v2 edge cases: empty pages, empty compressed data", "[parquet]") {
  CHECK(MustRead("datapage_v2_empty_datapage.snappy.parquet") ==
        std::vector<Json>{Json::parse(R"({"value":null})")});
  const std::vector<Json> rows = MustRead("page_v2_empty_compressed.parquet");  // ZSTD, all null
  CHECK(rows.size() == 10);
  for (const Json& row : rows) CHECK(row["integer_column"].is_null());
}

TEST_CASE("RLE booleans, INT96 beyond the nanosecond range, a zero dictionary offset",
          "[parquet]") {
  const std::vector<Json> booleans = MustRead("rle_boolean_encoding.parquet");
  CHECK(booleans.size() == 68);
  CHECK(booleans[0]["datatype_boolean"] == true);

  // int96_from_spark.md: microseconds 1704141296123456, 1704070800000000, 253402225200000000,
  // 1735599600000000, null, 9089380393200000000.
  const Json int96 = Column(MustRead("int96_from_spark.parquet"), "a");
  CHECK(int96[0] == 1704141296123456000);
  CHECK(int96[1] == 1704070800000000000);
  CHECK(int96[2].get<std::string>().rfind("INT96(julian_day=", 0) == 0);
  CHECK(int96[3] == 1735599600000000000);
  CHECK(int96[4].is_null());

  CHECK(MustRead("dict-page-offset-zero.parquet").size() == 39);
}

TEST_CASE("data page v2 with DELTA_BINARY_PACKED, RLE booleans and a list", "[parquet]") {
  const std::vector<Json> rows = MustRead("datapage_v2.snappy.parquet");
  REQUIRE(rows.size() == 5);
  CHECK(Column(rows, "a") == Json::parse(R"(["abc","abc","abc",null,"abc"])"));
  CHECK(Column(rows, "b") == Json::parse("[1,2,3,4,5]"));
  CHECK(Column(rows, "c") == Json::parse("[2.0,3.0,4.0,5.0,2.0]"));
  CHECK(Column(rows, "d") == Json::parse("[true,true,true,false,true]"));
  CHECK(Column(rows, "e") == Json::parse("[[1,2,3],null,null,[1,2,3],[1,2]]"));
}

TEST_CASE("DELTA_LENGTH_BYTE_ARRAY and BYTE_STREAM_SPLIT", "[parquet]") {
  const std::vector<Json> fruit = MustRead("delta_length_byte_array.parquet");  // ZSTD
  REQUIRE(fruit.size() == 1000);
  for (size_t i = 0; i < fruit.size(); ++i) {
    CHECK(fruit[i]["FRUIT"] == "apple_banana_mango" + std::to_string(i * i));
  }
  CHECK(MustRead("byte_stream_split.zstd.parquet").size() == 300);
  // Each *_byte_stream_split column holds the same values as its *_plain twin.
  const std::vector<Json> split = MustRead("byte_stream_split_extended.gzip.parquet");
  REQUIRE_FALSE(split.empty());
  for (const Json& row : split) {
    for (const char* type : {"float16", "float", "double", "int32", "int64", "flba5", "decimal"}) {
      INFO(type);
      CHECK(row[std::string(type) + "_plain"] == row[std::string(type) + "_byte_stream_split"]);
    }
  }
}

TEST_CASE("row groups are read one after another", "[parquet]") {
  absl::StatusOr<std::unique_ptr<ParquetReader>> reader =
      ParquetReader::Open(DataFile("sort_columns.parquet"));
  REQUIRE(reader.ok());
  CHECK((*reader)->num_row_groups() == 2);
  const std::vector<Json> rows = MustRead("sort_columns.parquet");
  REQUIRE(rows.size() == 6);
  CHECK(rows[0] == rows[3]);  // the README: two row groups with the same data
  CHECK(MustRead("column_chunk_key_value_metadata.parquet").empty());
}

TEST_CASE("a file opened from memory reads like the file", "[parquet]") {
  std::ifstream file(DataFile("alltypes_plain.parquet"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  absl::StatusOr<std::unique_ptr<ParquetReader>> reader =
      ParquetReader::OpenFromMemory(std::move(bytes));
  REQUIRE(reader.ok());
  std::vector<Json> rows;
  Json row;
  while (*(*reader)->Next(&row)) rows.push_back(row);
  CHECK(rows == MustRead("alltypes_plain.parquet"));
}

TEST_CASE("CatRows prints JSON lines up to the limit", "[parquet]") {
  std::ostringstream out;
  REQUIRE(CatRows(DataFile("alltypes_plain.parquet"), 2, out).ok());
  std::istringstream lines(out.str());
  std::string first, second, third;
  std::getline(lines, first);
  std::getline(lines, second);
  CHECK_FALSE(std::getline(lines, third));
  CHECK(Json::parse(first)["id"] == 4);
  CHECK(Json::parse(second)["string_col"] == "1");

  std::ostringstream all;
  REQUIRE(CatRows(DataFile("nested_lists.snappy.parquet"), -1, all).ok());
  CHECK(all.str().rfind(R"({"a":[[["a","b"],["c"]],[null,["d"]]],"b":1})"
                        "\n",
                        0) == 0);

  std::ostringstream none;
  CHECK(CatRows(DataFile("no_such_file.parquet"), -1, none).code() == absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace kvbench::parquet
