#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.h"  // find_invalid_utf8

namespace sl {

// UTF-8 <-> code points, with Python's notion of whitespace. sacreBLEU runs on Python str
// (code points), so the metrics decode once and reproduce str.split()/str.rstrip() exactly.


// Decodes well-formed UTF-8; throws InputError(where, ...) naming the bad byte offset.
std::u32string utf8_decode(std::string_view text, const std::string& where);
std::string utf8_encode(std::u32string_view text);

// True for exactly the code points where Python's str.isspace() is true.
bool is_python_space(char32_t c);

// Python's str.split() with no argument: runs of whitespace separate, no empty pieces.
std::vector<std::u32string> python_split(std::u32string_view text);

// Python's str.rstrip() with no argument.
std::u32string_view python_rstrip(std::u32string_view text);

}  // namespace sl

namespace sl {

// Throws InputError("<what> line N", ...) for the first line (1-based) that is not valid
// UTF-8, so corpus-level callers report the line before any metric work starts.
void check_utf8_lines(const std::vector<std::string>& lines, const std::string& what);

}  // namespace sl
