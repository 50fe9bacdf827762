#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace kvbench::kvctl {

// A plain-text table for people: a header row, then rows, columns separated by two spaces,
// numeric cells right-aligned. Column widths fit the widest cell.
class TablePrinter {
 public:
  explicit TablePrinter(std::vector<std::string> headers);

  // A row must have as many cells as there are headers (missing cells print empty).
  void AddRow(std::vector<std::string> cells);
  void Print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace kvbench::kvctl
