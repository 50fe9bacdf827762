#include <iostream>
#include <catch2/catch.hpp>
#include "tests/unit/parquet/parquet_test_files.h"
using namespace kvbench::parquet::testing;
TEST_CASE("survey", "[.survey]") {
  for (const char* folder : {"data", "bad_data"}) {
    for (const std::string& path : ListFiles(folder)) {
      auto rows = ReadAllRows(path);
      std::cout << path.substr(path.rfind('/') + 1) << ": ";
      if (rows.ok()) {
        std::cout << "OK " << rows->size() << " rows; first: "
                  << (rows->empty() ? "" : (*rows)[0].dump(-1, ' ', false, kvbench::parquet::Json::error_handler_t::replace).substr(0, 300)) << "\n";
      } else {
        std::cout << rows.status() << "\n";
      }
    }
  }
}
