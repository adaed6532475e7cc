#pragma once
#include <optional>
#include <string>

namespace sl {

// RFC 4648 base64 with padding, for binary data inside JSON (e.g. the SentencePiece model
// embedded in best-model.ckpt's header).
std::string base64_encode(const std::string& bytes);
// nullopt when `text` is not canonical padded base64 (wrong length, a character outside the
// alphabet, padding in the middle).
std::optional<std::string> base64_decode(const std::string& text);

}  // namespace sl
