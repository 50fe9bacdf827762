#pragma once

// The store tests' one way to open a real SQLite file: the test fails, with the store's message,
// when it does not open.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "controller/store/sqlite_store.h"

namespace kvbench::testing {

inline std::unique_ptr<controller::SqliteStore> OpenStore(const std::string& path) {
  absl::StatusOr<std::unique_ptr<controller::SqliteStore>> store =
      controller::SqliteStore::Open(path);
  INFO(store.status().ToString());
  REQUIRE(store.ok());
  return *std::move(store);
}

}  // namespace kvbench::testing
