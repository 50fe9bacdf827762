#pragma once

// Where a store test's store lives, on either engine the controller runs on: a fresh SQLite file
// in a temp dir, or a fresh database on the test binary's one real PostgreSQL server
// (tests/support/postgres_server.h, started on first use). A test that holds for both takes
// `TestStoreLocation at(GENERATE(kStoreEngines))` and runs once per engine; Open() may be called
// again for a reopen. A failure to open fails the test with the store's message.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "controller/store/sql_store.h"
#include "tests/support/postgres_server.h"
#include "tests/support/temp_dir.h"

namespace kvbench::testing {

enum class StoreEngine { kSqlite, kPostgres };
#define kStoreEngines \
  ::kvbench::testing::StoreEngine::kSqlite, ::kvbench::testing::StoreEngine::kPostgres

inline std::unique_ptr<controller::SqlStore> RequireOpened(
    absl::StatusOr<std::unique_ptr<controller::SqlStore>> store) {
  INFO(store.status().ToString());
  REQUIRE(store.ok());
  return *std::move(store);
}

// The SQLite file at `path` (the SQLite-only tests: file formats, upgrades of old files).
inline std::unique_ptr<controller::SqlStore> OpenStore(const std::string& path) {
  return RequireOpened(controller::SqlStore::OpenSqlite(path));
}

class TestStoreLocation {
 public:
  explicit TestStoreLocation(StoreEngine engine) : engine_(engine) {
    if (engine_ == StoreEngine::kPostgres) {
      absl::StatusOr<std::string> dsn = SharedPostgresServer().CreateDatabase();
      INFO(dsn.status().ToString());
      REQUIRE(dsn.ok());
      dsn_ = *dsn;
    }
  }

  const char* engine_name() const {
    return engine_ == StoreEngine::kSqlite ? "sqlite" : "postgresql";
  }

  absl::StatusOr<std::unique_ptr<controller::SqlStore>> TryOpen() const {
    return engine_ == StoreEngine::kSqlite ? controller::SqlStore::OpenSqlite(dir_.File("kv.db"))
                                           : controller::SqlStore::OpenPostgres(dsn_);
  }
  // The PostgreSQL database's connection string ("" for SQLite).
  const std::string& dsn() const { return dsn_; }
  std::unique_ptr<controller::SqlStore> Open() const {
    INFO("engine: " << engine_name());
    return RequireOpened(TryOpen());
  }

 private:
  StoreEngine engine_;
  TempDir dir_;
  std::string dsn_;
};

}  // namespace kvbench::testing
