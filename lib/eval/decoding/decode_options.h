#pragma once
#include <cstdint>
#include <vector>

#include "common/config_object.h"
#include "models/seq2seq_model.h"

namespace sl {

struct DecodeOptions {
  int beam_size = 4;
  // Final hypotheses are ranked by score / length^alpha (length counts EOS); 0 = raw sum.
  float length_alpha = 0.6f;
  // At most floor(factor * source length) + offset output tokens (before EOS), clamped to
  // the model's max_target_length().
  float max_length_factor = 2.0f;
  int max_length_offset = 10;
  int32_t bos_id = 2;  // fed as the first previous token
  int32_t eos_id = 3;  // ends a hypothesis; never part of the returned tokens
};

// Reads {"beam_size", "length_alpha", "max_length_factor", "max_length_offset"} (all
// optional); bos/eos come from the vocabulary, not the config. Calls c.finish().
DecodeOptions parse_decode_options(ConfigObject& c);

// One output sentence: token ids without BOS and EOS.
struct Hypothesis {
  std::vector<int32_t> tokens;
  float score = 0.0f;             // sum of token log-probabilities, EOS included
  float normalized_score = 0.0f;  // score / length^alpha
  bool ended_with_eos = false;    // false: stopped at the length limit
};

int max_output_length(const DecodeOptions& o, int source_length, const Seq2SeqModel& model);
float normalized_score(float score, int length, float alpha);

}  // namespace sl
