// Table tests of the pieces: Thrift compact decoding (unknown fields skipped), the RLE/bit-packed
// hybrid, PLAIN values.
#include <catch2/catch.hpp>

#include "common/parquet/metadata_parser.h"
#include "common/parquet/rle_bit_packed_decoder.h"
#include "common/parquet/schema.h"
#include "common/parquet/thrift_compact_reader.h"
#include "common/parquet/value_decoder.h"

namespace kvbench::parquet {
namespace {

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

TEST_CASE("the RLE/bit-packed hybrid decodes runs and bit-packed groups", "[parquet][rle]") {
  // Run of 5 × 3 (width 2), then one bit-packed group of 8 values 0..7 (width 3).
  // The decoder keeps a view: the bytes must outlive it.
  const std::string run_bytes = Bytes({5 << 1, 3});
  const std::string packed_bytes = Bytes({(1 << 1) | 1, 0x88, 0xC6, 0xFA});
  const std::string wide_bytes = Bytes({2 << 1, 7});
  std::vector<uint32_t> out;
  RleBitPackedDecoder run(run_bytes, 2);
  REQUIRE(run.Decode(5, &out).ok());
  CHECK(out == std::vector<uint32_t>{3, 3, 3, 3, 3});

  out.clear();
  // 0..7 at 3 bits, LSB first: 0b10001000, 0b11000110, 0b11111010.
  RleBitPackedDecoder packed(packed_bytes, 3);
  REQUIRE(packed.Decode(8, &out).ok());
  CHECK(out == std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});

  out.clear();
  RleBitPackedDecoder short_data(run_bytes, 2);
  CHECK(short_data.Decode(6, &out).code() == absl::StatusCode::kInvalidArgument);
  RleBitPackedDecoder too_wide(wide_bytes, 2);  // 7 does not fit in 2 bits
  CHECK_FALSE(too_wide.Decode(1, &out).ok());

  CHECK(BitWidth(0) == 0);
  CHECK(BitWidth(1) == 1);
  CHECK(BitWidth(3) == 2);
  CHECK(BitWidth(4) == 3);
}

TEST_CASE("Thrift compact: known fields read, unknown ones of every type skipped",
          "[parquet][thrift]") {
  // PageHeader{type=0 (field 1, i32 zigzag 0), field 9: list<binary>["ab"], field 10: struct{1:
  // double}, uncompressed 2 → field 2 (long form id), compressed 3, crc 4}
  const std::string bytes = Bytes(
      {0x15, 0x00,                  // field 1, i32: 0
       0x89, 0x18, 0x02, 'a', 'b',  // field 9 (delta 8), list of 1 binary "ab"
       0x1c, 0x17, 0,    0,   0,   0, 0, 0, 0xf0, 0x3f, 0x00,  // field 10 struct {1: double 1.0}
       0x05, 0x04, 0x04,  // field 2 (long form: zigzag 4 → 2), i32 2
       0x15, 0x06,        // field 3, i32 3
       0x15, 0x08,        // field 4, i32 4 (crc)
       0x00});
  size_t size = 0;
  absl::StatusOr<PageHeader> header = ParsePageHeader(bytes, &size);
  INFO(header.status());
  REQUIRE(header.ok());
  CHECK(size == bytes.size());
  CHECK(header->type == kDataPage);
  CHECK(header->uncompressed_page_size == 2);
  CHECK(header->compressed_page_size == 3);
  CHECK(header->crc == 4);

  CHECK_FALSE(ParsePageHeader(bytes.substr(0, 9), &size).ok());              // truncated
  CHECK_FALSE(ParsePageHeader(Bytes({0x18, 0x01, 'x', 0x00}), &size).ok());  // field 1 as binary
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += Bytes({0x1c});  // structs nested 200 deep
  CHECK_FALSE(ParsePageHeader(deep, &size).ok());
}

TEST_CASE("PLAIN values of each physical type", "[parquet][plain]") {
  SchemaNode leaf;
  leaf.path = "x";
  std::vector<Json> out;
  leaf.physical_type = kBoolean;
  REQUIRE(DecodeValues(leaf, kPlain, Bytes({0x05}), 3, nullptr, &out).ok());
  CHECK(Json(out) == Json::parse("[true,false,true]"));
  out.clear();
  leaf.physical_type = kByteArray;
  REQUIRE(
      DecodeValues(leaf, kPlain, Bytes({2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0}), 2, nullptr, &out).ok());
  CHECK(Json(out) == Json::parse(R"(["hi",""])"));
  CHECK_FALSE(DecodeValues(leaf, kPlain, Bytes({9, 0, 0, 0, 'h'}), 1, nullptr, &out).ok());
  out.clear();
  leaf.physical_type = kInt32;
  REQUIRE(DecodeValues(leaf, kPlain, Bytes({0xff, 0xff, 0xff, 0xff}), 1, nullptr, &out).ok());
  CHECK(out[0] == -1);
  CHECK_FALSE(DecodeValues(leaf, kPlain, Bytes({1, 2, 3}), 1, nullptr, &out).ok());
  const std::vector<Json> dictionary = {"a", "b"};
  out.clear();
  REQUIRE(DecodeValues(leaf, kRleDictionary, Bytes({1, 3 << 1, 1}), 3, &dictionary, &out).ok());
  CHECK(Json(out) == Json::parse(R"(["b","b","b"])"));
  CHECK_FALSE(DecodeValues(leaf, kRleDictionary, Bytes({2, 3 << 1, 2}), 3, &dictionary, &out).ok());
  absl::Status unknown = DecodeValues(leaf, 1, "", 1, nullptr, &out);
  CHECK(unknown.code() == absl::StatusCode::kUnimplemented);
  CHECK(std::string(unknown.message()) == "encoding GROUP_VAR_INT (column x) is not supported");
}

}  // namespace
}  // namespace kvbench::parquet
