#pragma once
#include <string>
#include <vector>

namespace sl {

// Reads a UTF-8 text file, plain or gzip-compressed (detected by content, not by name),
// one entry per line without the '\n' (and without a trailing '\r'). A last line without
// '\n' counts as a line. Throws InputError naming the file when it cannot be read, is not
// valid gzip, or is empty, and naming file:line when a line is not valid UTF-8 or holds a
// NUL byte.
std::vector<std::string> read_text_lines(const std::string& path);

// The same split and checks for text already read (e.g. from stdin); `name` ("<stdin>" or a
// path) names it in errors. An empty text has no lines.
std::vector<std::string> split_text_lines(const std::string& text, const std::string& name);

}  // namespace sl
