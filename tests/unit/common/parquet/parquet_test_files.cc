#include "tests/unit/common/parquet/parquet_test_files.h"

#include <algorithm>
#include <filesystem>

#include "common/parquet/parquet_reader.h"
#include "common/status/status_macros.h"

namespace kvbench::parquet::testing {

std::string DataFile(const std::string& name) {
  return std::string(KV_PARQUET_TESTING_DIR) + "/data/" + name;
}

std::string BadDataFile(const std::string& name) {
  return std::string(KV_PARQUET_TESTING_DIR) + "/bad_data/" + name;
}

std::vector<std::string> ListFiles(const std::string& folder) {
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(KV_PARQUET_TESTING_DIR) + "/" + folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.find(".parquet") != std::string::npos) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

absl::StatusOr<std::vector<Json>> ReadAllRows(const std::string& path) {
  KV_ASSIGN_OR_RETURN(std::unique_ptr<ParquetReader> reader, ParquetReader::Open(path));
  std::vector<Json> rows;
  Json row;
  while (true) {
    KV_ASSIGN_OR_RETURN(bool more, reader->Next(&row));
    if (!more) break;
    rows.push_back(row);
  }
  if (static_cast<int64_t>(rows.size()) != reader->num_rows()) {
    return absl::InternalError("row count differs from the footer's num_rows");
  }
  return rows;
}

Json Column(const std::vector<Json>& rows, const std::string& name) {
  Json out = Json::array();
  for (const Json& row : rows) out.push_back(row.contains(name) ? row[name] : Json("<missing>"));
  return out;
}

}  // namespace kvbench::parquet::testing
