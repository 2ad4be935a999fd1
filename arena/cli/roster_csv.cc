#include "arena/cli/roster_csv.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace tarock::arena {

absl::StatusOr<std::vector<std::vector<std::string>>> ParseCsv(absl::string_view text) {
  absl::ConsumePrefix(&text, "\xEF\xBB\xBF");  // a UTF-8 byte-order mark
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;      // inside a quoted field
  bool any = false;         // the row has something (a field or a comma)
  auto end_field = [&] {
    row.push_back(std::move(field));
    field.clear();
  };
  auto end_row = [&] {
    if (any || !field.empty()) {
      end_field();
      rows.push_back(std::move(row));
    }
    row.clear();
    field.clear();
    any = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        quoted = true;
        any = true;
        break;
      case ',':
        end_field();
        any = true;
        break;
      case '\r':
        if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
        end_row();
        break;
      case '\n':
        end_row();
        break;
      default:
        field += c;
        any = true;
    }
  }
  if (quoted) return absl::InvalidArgumentError("the CSV ends inside a quoted field (a '\"' left open)");
  end_row();
  return rows;
}

absl::StatusOr<std::vector<std::string>> RosterNames(absl::string_view text,
                                                    const std::string& column) {
  absl::StatusOr<std::vector<std::vector<std::string>>> rows = ParseCsv(text);
  if (!rows.ok()) return rows.status();
  size_t col = 0;
  size_t first = 0;
  auto same = [](absl::string_view a, absl::string_view b) {
    return absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(a), absl::StripAsciiWhitespace(b));
  };
  if (!rows->empty()) {
    const std::vector<std::string>& header = rows->front();
    const std::string want = column.empty() ? "name" : column;
    bool found = false;
    for (size_t i = 0; i < header.size() && !found; ++i)
      if (same(header[i], want)) col = i, found = true;
    if (found) first = 1;
    if (!found && !column.empty())
      return absl::InvalidArgumentError(absl::StrCat(
          "the roster's first row has no column '", column, "' (its columns: ",
          absl::StrJoin(header, ", "), ")"));
  }
  std::vector<std::string> names;
  for (size_t r = first; r < rows->size(); ++r) {
    if (col >= (*rows)[r].size()) continue;
    std::string name(absl::StripAsciiWhitespace((*rows)[r][col]));
    if (!name.empty()) names.push_back(std::move(name));
  }
  return names;
}

}  // namespace tarock::arena
