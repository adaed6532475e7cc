#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace sl {

// Length (1..4) of the well-formed UTF-8 sequence at text[i] and its code point in *out,
// or 0 when it is not well-formed (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF, not truncated).
size_t utf8_decode_one(std::string_view text, size_t i, char32_t* out);

// Byte offset of the first byte that is not part of well-formed UTF-8, or nullopt.
std::optional<size_t> find_invalid_utf8(std::string_view text);

}  // namespace sl
