#pragma once
#include <string>
#include <string_view>

namespace sl {

// sacreBLEU's default BLEU tokenizer "13a" (Tokenizer13a + TokenizerRegexp, sacreBLEU
// 2.4-2.6), i.e. the tokenization of WMT's mteval-v13a.pl: drop "<skipped>", join
// "-\n" line breaks, unescape &quot; &amp; &lt; &gt; (in that order, once each), split off
// ASCII punctuation except ' , . - , split '.' and ',' unless between digits, split '-'
// after a digit, and collapse whitespace (Python's Unicode whitespace) to single spaces.
// Case is kept. Works on code points; the result has no leading or trailing space.
std::u32string tokenize_13a(std::u32string_view line);

// The same on UTF-8 text; throws InputError("13a tokenizer input", ...) on invalid UTF-8.
std::string tokenize_13a(std::string_view utf8_line);

}  // namespace sl
