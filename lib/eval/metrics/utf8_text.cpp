#include "eval/metrics/utf8_text.h"

#include "common/input_error.h"

namespace sl {

std::u32string utf8_decode(std::string_view text, const std::string& where) {
  std::u32string out;
  out.reserve(text.size());
  char32_t cp;
  for (size_t i = 0; i < text.size();) {
    const size_t len = utf8_decode_one(text, i, &cp);
    if (len == 0) {
      throw InputError(where, "invalid UTF-8 at byte " + std::to_string(i + 1) +
                                  " (expected well-formed UTF-8 text)");
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::string utf8_encode(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

bool is_python_space(char32_t c) {
  // The list printed by [c for c in range(0x110000) if chr(c).isspace()] (Python 3.11);
  // it includes the ASCII file/group/record/unit separators and NBSP, unlike isspace(3).
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  if (c < 0x85) return false;
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<std::u32string> python_split(std::u32string_view text) {
  std::vector<std::u32string> pieces;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_python_space(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !is_python_space(text[i])) ++i;
    if (i > start) pieces.emplace_back(text.substr(start, i - start));
  }
  return pieces;
}

std::u32string_view python_rstrip(std::u32string_view text) {
  size_t end = text.size();
  while (end > 0 && is_python_space(text[end - 1])) --end;
  return text.substr(0, end);
}

}  // namespace sl

namespace sl {

void check_utf8_lines(const std::vector<std::string>& lines, const std::string& what) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (const auto bad = find_invalid_utf8(lines[i])) {
      throw InputError(what + " line " + std::to_string(i + 1),
                       "invalid UTF-8 at byte " + std::to_string(*bad + 1) +
                           " (expected well-formed UTF-8 text)");
    }
  }
}

}  // namespace sl
