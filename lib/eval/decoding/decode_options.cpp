#include "eval/decoding/decode_options.h"

#include <algorithm>
#include <cmath>

namespace sl {

DecodeOptions parse_decode_options(ConfigObject& c) {
  DecodeOptions o;
  o.beam_size = static_cast<int>(c.integer("beam_size", o.beam_size, 1, 1024));
  o.length_alpha = static_cast<float>(c.number("length_alpha", o.length_alpha, 0.0, 10.0));
  o.max_length_factor =
      static_cast<float>(c.number("max_length_factor", o.max_length_factor, 0.0, 1000.0));
  o.max_length_offset =
      static_cast<int>(c.integer("max_length_offset", o.max_length_offset, 0, 1 << 20));
  c.finish();
  return o;
}

int max_output_length(const DecodeOptions& o, int source_length, const Seq2SeqModel& model) {
  const double n =
      std::floor(static_cast<double>(o.max_length_factor) * source_length) + o.max_length_offset;
  // The decoder feeds BOS plus every output token but the last: positions = length.
  const double limit = std::min<double>(n, model.max_target_length());
  return std::max(1, static_cast<int>(limit));
}

float normalized_score(float score, int length, float alpha) {
  if (alpha == 0.0f || length <= 0) return score;
  return score / std::pow(static_cast<float>(length), alpha);
}

}  // namespace sl
