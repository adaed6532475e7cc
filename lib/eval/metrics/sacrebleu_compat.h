#pragma once

namespace sl {

// The sacreBLEU release whose BLEU/chrF behaviour these metrics reproduce and whose name
// goes into the signatures. The tokenizer, BLEU and chrF code is unchanged from 2.4.3 to
// 2.6.0 (checked by diffing the released sources), so scores are compatible with all of
// them; the fixtures in tests/eval/fixtures were produced by 2.6.0.
inline constexpr const char* kSacrebleuCompatibleVersion = "2.6.0";

}  // namespace sl
