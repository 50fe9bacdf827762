# Every dependency is a Debian 12 package (deploy/setup.sh installs them).
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)                # module mode: Debian ships no protobuf CMake config
find_package(gRPC 1.51 CONFIG REQUIRED)
find_package(absl CONFIG REQUIRED)
find_package(Boost 1.74 REQUIRED)              # header-only Asio/Beast: Boost::headers
find_package(nlohmann_json 3.11 CONFIG REQUIRED)
find_package(prometheus-cpp CONFIG REQUIRED)   # no version: the package ships no version file
find_package(CURL REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(OpenSSL 3 REQUIRED)               # libcrypto: SHA-256 of bearer tokens (gRPC links it anyway)
find_package(cppzmq CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(Catch2 2 CONFIG REQUIRED)
# Page codecs of the native Parquet reader (common/parquet). zlib: CMake's own FindZLIB module
# (GZIP pages and the page CRC32). snappy and zstd: pkg-config, whose .pc files both Debian
# packages ship and whose names are stable across versions (zstd's CMake config changed its
# target names between releases; snappy's works too, but one mechanism for both is simpler).
find_package(ZLIB REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(KV_SNAPPY REQUIRED IMPORTED_TARGET snappy)
pkg_check_modules(KV_ZSTD REQUIRED IMPORTED_TARGET libzstd)
# The controller's PostgreSQL store (controller/store/postgres_database.h): libpq, PostgreSQL's own
# C client (Debian's libpq-dev, whose .pc file pkg-config reads). Not libpqxx: Debian 12 ships
# 6.4, and the store needs only prepared statements with binary parameters and the SQLSTATE of
# each error, behind the same thin statement seam as SQLite's.
pkg_check_modules(KV_LIBPQ REQUIRED IMPORTED_TARGET libpq)
