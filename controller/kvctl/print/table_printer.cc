#include "controller/kvctl/print/table_printer.h"

#include <algorithm>
#include <iomanip>

#include "absl/strings/numbers.h"

namespace kvbench::kvctl {
namespace {

bool IsNumeric(const std::string& cell) {
  double ignored;
  std::string trimmed = cell;
  if (!trimmed.empty() && trimmed.back() == '%') trimmed.pop_back();
  return !trimmed.empty() && absl::SimpleAtod(trimmed, &ignored);
}

}  // namespace

TablePrinter::TablePrinter(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void TablePrinter::AddRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void TablePrinter::Print(std::ostream& out) const {
  std::vector<size_t> widths(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = headers_[c].size();
    for (const auto& row : rows_) widths[c] = std::max(widths[c], row[c].size());
  }
  auto print_row = [&](const std::vector<std::string>& cells, bool header) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      bool right = !header && IsNumeric(cells[c]);
      std::string pad(widths[c] - cells[c].size(), ' ');
      line += right ? pad + cells[c] : cells[c] + pad;
      if (c + 1 < cells.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  print_row(headers_, /*header=*/true);
  for (const auto& row : rows_) print_row(row, /*header=*/false);
}

}  // namespace kvbench::kvctl
