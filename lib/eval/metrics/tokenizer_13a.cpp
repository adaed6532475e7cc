#include "eval/metrics/tokenizer_13a.h"

#include "eval/metrics/utf8_text.h"

namespace sl {

namespace {

// Python's str.replace(old, new): every non-overlapping occurrence, scanning left to right.
void replace_all(std::u32string& text, std::u32string_view from, std::u32string_view to) {
  std::u32string out;
  size_t pos = 0;
  for (size_t hit; (hit = text.find(from.data(), pos, from.size())) != std::u32string::npos;
       pos = hit + from.size()) {
    out.append(text, pos, hit - pos);
    out.append(to);
  }
  if (pos == 0) return;
  out.append(text, pos, std::u32string::npos);
  text.swap(out);
}

bool is_digit(char32_t c) { return c >= U'0' && c <= U'9'; }  // re's [0-9]: ASCII only
bool is_period_or_comma(char32_t c) { return c == U'.' || c == U','; }

// The class [\{-\~\[-\` -\&\(-\+\:-\@\/] of the first TokenizerRegexp rule: ASCII
// punctuation and space, except ' , - . (and digits/letters).
bool is_split_punct(char32_t c) {
  return (c >= U'{' && c <= U'~') || (c >= U'[' && c <= U'`') || (c >= U' ' && c <= U'&') ||
         (c >= U'(' && c <= U'+') || (c >= U':' && c <= U'@') || c == U'/';
}

// re.sub(r'(A)(B)', repl, text) for two single-character classes: matches do not overlap
// and scanning resumes after the second character of a match, as in Python's re.sub.
template <typename First, typename Second, typename Emit>
std::u32string substitute_pairs(const std::u32string& text, First first, Second second,
                                Emit emit) {
  std::u32string out;
  out.reserve(text.size() + text.size() / 2);
  size_t i = 0;
  while (i < text.size()) {
    if (i + 1 < text.size() && first(text[i]) && second(text[i + 1])) {
      emit(out, text[i], text[i + 1]);
      i += 2;
    } else {
      out.push_back(text[i]);
      ++i;
    }
  }
  return out;
}

}  // namespace

std::u32string tokenize_13a(std::u32string_view line) {
  std::u32string text(line);
  replace_all(text, U"<skipped>", U"");
  replace_all(text, U"-\n", U"");
  replace_all(text, U"\n", U" ");
  replace_all(text, U"&quot;", U"\"");
  replace_all(text, U"&amp;", U"&");
  replace_all(text, U"&lt;", U"<");
  replace_all(text, U"&gt;", U">");

  std::u32string padded;
  padded.reserve(text.size() * 2 + 2);
  padded.push_back(U' ');
  for (char32_t c : text) {
    if (is_split_punct(c)) {
      padded.push_back(U' ');
      padded.push_back(c);
      padded.push_back(U' ');
    } else {
      padded.push_back(c);
    }
  }
  padded.push_back(U' ');

  const auto not_digit = [](char32_t c) { return !is_digit(c); };
  // ([^0-9])([\.,]) -> '\1 \2 '
  padded = substitute_pairs(padded, not_digit, is_period_or_comma,
                            [](std::u32string& out, char32_t a, char32_t b) {
                              out += a;
                              out += U' ';
                              out += b;
                              out += U' ';
                            });
  // ([\.,])([^0-9]) -> ' \1 \2'
  padded = substitute_pairs(padded, is_period_or_comma, not_digit,
                            [](std::u32string& out, char32_t a, char32_t b) {
                              out += U' ';
                              out += a;
                              out += U' ';
                              out += b;
                            });
  // ([0-9])(-) -> '\1 \2 '
  padded = substitute_pairs(padded, is_digit, [](char32_t c) { return c == U'-'; },
                            [](std::u32string& out, char32_t a, char32_t b) {
                              out += a;
                              out += U' ';
                              out += b;
                              out += U' ';
                            });

  std::u32string joined;
  joined.reserve(padded.size());
  for (const std::u32string& token : python_split(padded)) {
    if (!joined.empty()) joined.push_back(U' ');
    joined += token;
  }
  return joined;
}

std::string tokenize_13a(std::string_view utf8_line) {
  return utf8_encode(tokenize_13a(utf8_decode(utf8_line, "13a tokenizer input")));
}

}  // namespace sl
