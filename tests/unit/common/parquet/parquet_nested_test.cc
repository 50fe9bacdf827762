// Nested files of parquet-testing: LIST (3-level and legacy 2-level), MAP, STRUCT, unannotated
// repeated fields, nulls and empty collections at every level. Expected rows follow the files'
// docs (*.md, README) and the values other readers (Arrow, parquet-rs) print for them.
#include <catch2/catch.hpp>

#include "tests/unit/common/parquet/parquet_test_files.h"

namespace kvbench::parquet {
namespace {

using testing::DataFile;
using testing::ReadAllRows;

// The file's rows, each compared with a JSON text.
void CheckRows(const std::string& name, const std::vector<std::string>& expected) {
  absl::StatusOr<std::vector<Json>> rows = ReadAllRows(DataFile(name));
  INFO(name << ": " << rows.status());
  REQUIRE(rows.ok());
  REQUIRE(rows->size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("row " << i);
    CHECK((*rows)[i].dump() == Json::parse(expected[i]).dump());
  }
}

TEST_CASE("nested_lists.snappy.parquet: list<list<list<string>>> with null elements",
          "[parquet][nested]") {
  CheckRows("nested_lists.snappy.parquet",
            {R"({"a":[[["a","b"],["c"]],[null,["d"]]],"b":1})",
             R"({"a":[[["a","b"],["c","d"]],[null,["e"]]],"b":1})",
             R"({"a":[[["a","b"],["c","d"],["e"]],[null,["f"]]],"b":1})"});
}

TEST_CASE("nested_maps.snappy.parquet: map<string, map<int, bool>>", "[parquet][nested]") {
  CheckRows("nested_maps.snappy.parquet",
            {R"({"a":{"a":{"1":true,"2":false}},"b":1,"c":1.0})",
             R"({"a":{"b":{"1":true}},"b":1,"c":1.0})", R"({"a":{"c":null},"b":1,"c":1.0})",
             R"({"a":{"d":{}},"b":1,"c":1.0})", R"({"a":{"e":{"1":true}},"b":1,"c":1.0})",
             R"({"a":{"f":{"3":true,"4":false,"5":true}},"b":1,"c":1.0})"});
}

TEST_CASE("nonnullable.impala.parquet: required nesting, empty lists and maps",
          "[parquet][nested]") {
  CheckRows("nonnullable.impala.parquet",
            {R"({"ID":8,"Int_Array":[-1],"int_array_array":[[-1,-2],[]],"Int_Map":{"k1":-1},
                 "int_map_array":[{},{"k1":1},{},{}],
                 "nested_Struct":{"a":-1,"B":[-1],"c":{"D":[[{"e":-1,"f":"nonnullable"}]]},
                                  "G":{}}})"});
}

TEST_CASE("nullable.impala.parquet: nulls at every level", "[parquet][nested]") {
  absl::StatusOr<std::vector<Json>> rows = ReadAllRows(DataFile("nullable.impala.parquet"));
  REQUIRE(rows.ok());
  REQUIRE(rows->size() == 7);
  const std::vector<Json>& r = *rows;
  CHECK(r[0]["int_array"] == Json::parse("[1,2,3]"));
  CHECK(r[0]["int_array_Array"] == Json::parse("[[1,2],[3,4]]"));
  CHECK(r[0]["int_map"] == Json::parse(R"({"k1":1,"k2":100})"));
  CHECK(r[0]["nested_struct"]["C"]["d"] ==
        Json::parse(R"([[{"E":10,"F":"aaa"},{"E":-10,"F":"bbb"}],[{"E":11,"F":"c"}]])"));
  CHECK(r[0]["nested_struct"]["g"] == Json::parse(R"({"foo":{"H":{"i":[1.1]}}})"));
  CHECK(r[1]["int_array"] == Json::parse("[null,1,2,null,3,null]"));
  CHECK(r[1]["int_array_Array"] == Json::parse("[[null,1,2,null],[3,null,4],[],null]"));
  CHECK(r[1]["int_map"] == Json::parse(R"({"k1":2,"k2":null})"));
  CHECK(r[1]["int_Map_Array"] == Json::parse(R"([{"k3":null,"k1":1},null,{}])"));
  CHECK(r[2]["int_array"] == Json::array());
  CHECK(r[2]["int_array_Array"] == Json::parse("[null]"));
  CHECK(r[2]["nested_struct"] == Json::parse(R"({"A":null,"b":null,"C":{"d":[]},"g":{}})"));
  CHECK(r[3]["int_array"].is_null());
  CHECK(r[3]["int_array_Array"] == Json::array());
  CHECK(r[5]["id"] == 6);
  CHECK(r[5]["nested_struct"].is_null());
  CHECK(r[6]["int_array_Array"] == Json::parse("[null,[5,6]]"));
  CHECK(r[6]["nested_struct"]["b"] == Json::parse("[2,3,null]"));
  CHECK(r[6]["nested_struct"]["C"]["d"] == Json::parse("[[],[null],null]"));
}

TEST_CASE("repeated_no_annotation.parquet: a repeated group without LIST", "[parquet][nested]") {
  CheckRows("repeated_no_annotation.parquet",
            {R"({"id":1,"phoneNumbers":null})", R"({"id":2,"phoneNumbers":null})",
             R"({"id":3,"phoneNumbers":{"phone":[]}})",
             R"({"id":4,"phoneNumbers":{"phone":[{"number":5555555555,"kind":null}]}})",
             R"({"id":5,"phoneNumbers":{"phone":[{"number":1111111111,"kind":"home"}]}})",
             R"({"id":6,"phoneNumbers":{"phone":[{"number":1111111111,"kind":"home"},
                 {"number":2222222222,"kind":null},{"number":3333333333,"kind":"mobile"}]}})"});
}

TEST_CASE("repeated_primitive_no_list.parquet: repeated primitives without LIST",
          "[parquet][nested]") {
  absl::StatusOr<std::vector<Json>> rows =
      ReadAllRows(DataFile("repeated_primitive_no_list.parquet"));
  REQUIRE(rows.ok());
  REQUIRE(rows->size() == 4);
  CHECK((*rows)[0]["Int32_list"] == Json::parse("[0,1,2,3]"));
  CHECK((*rows)[1]["Int32_list"] == Json::array());
  CHECK((*rows)[3]["group_of_lists"]["String_list_in_group"] ==
        Json::parse(R"(["five","six","seven","eight"])"));
}

TEST_CASE("list_columns.parquet, null_list.parquet: lists with null elements and empty lists",
          "[parquet][nested]") {
  CheckRows("list_columns.parquet", {R"({"int64_list":[1,2,3],"utf8_list":["abc","efg","hij"]})",
                                     R"({"int64_list":[null,1],"utf8_list":null})",
                                     R"({"int64_list":[4],"utf8_list":["efg",null,"hij","xyz"]})"});
  CheckRows("null_list.parquet", {R"({"emptylist":[]})"});
}

TEST_CASE("old_list_structure.parquet: the legacy 2-level list", "[parquet][nested]") {
  CheckRows("old_list_structure.parquet", {R"({"a":[[1,2],[3,4]]})"});
}

TEST_CASE("map_no_value.parquet: maps with null values and without a value column",
          "[parquet][nested]") {
  CheckRows("map_no_value.parquet",
            {R"({"my_map":{"1":null,"2":null,"3":null},"my_map_no_v":{"1":null,"2":null,"3":null},
                 "my_list":[1,2,3]})",
             R"({"my_map":{"4":null,"5":null,"6":null},"my_map_no_v":{"4":null,"5":null,"6":null},
                 "my_list":[4,5,6]})",
             R"({"my_map":{"7":null,"8":null,"9":null},"my_map_no_v":{"7":null,"8":null,"9":null},
                 "my_list":[7,8,9]})"});
  CheckRows("incorrect_map_schema.parquet", {R"({"my_map":{"parent":"another","name":"report"}})"});
}

}  // namespace
}  // namespace kvbench::parquet
