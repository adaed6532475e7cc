#include "data/text_lines.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "common/input_error.h"
#include "common/utf8.h"

namespace sl {
namespace {

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};

// gzread passes plain files through unchanged, so one reader serves both forms.
std::string read_decompressed(const std::string& path) {
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) {
    throw InputError(path, std::string("cannot open (") + std::strerror(errno) + ")");
  }
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const int got = gzread(file.get(), buf, sizeof buf);
    if (got < 0) {
      int code = 0;
      const char* msg = gzerror(file.get(), &code);
      throw InputError(path, std::string("cannot read (") + msg + ")");
    }
    if (got == 0) break;
    out.append(buf, static_cast<size_t>(got));
  }
  // A truncated .gz reads as a short file with Z_BUF_ERROR set; refuse it.
  int code = Z_OK;
  const char* msg = gzerror(file.get(), &code);
  if (code != Z_OK && code != Z_STREAM_END) {
    throw InputError(path, std::string("cannot read (") + msg + ")");
  }
  return out;
}

}  // namespace

std::vector<std::string> read_text_lines(const std::string& path) {
  const std::string text = read_decompressed(path);
  if (text.empty()) throw InputError(path, "empty file (expected one sentence per line)");
  return split_text_lines(text, path);
}

std::vector<std::string> split_text_lines(const std::string& text, const std::string& path) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    size_t stop = end;
    if (stop > start && text[stop - 1] == '\r') --stop;
    std::string_view line(text.data() + start, stop - start);
    if (const auto bad_at = find_invalid_utf8(line)) {
      const size_t bad = *bad_at;
      throw InputError(path + ":" + std::to_string(lines.size() + 1),
                       "invalid UTF-8 at byte " + std::to_string(bad + 1) +
                           " of the line (expected UTF-8 text)");
    }
    if (const size_t nul = line.find('\0'); nul != std::string_view::npos)
      throw InputError(path + ":" + std::to_string(lines.size() + 1),
                       "NUL byte at byte " + std::to_string(nul + 1) +
                           " of the line (expected text; it would silently become <unk>)");
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

}  // namespace sl
