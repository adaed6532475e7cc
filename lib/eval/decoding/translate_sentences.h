#pragma once
#include <vector>

#include "eval/decoding/decode_options.h"
#include "models/seq2seq_model.h"

namespace sl {

// Decodes many sources: sorts them by length (stable, so the grouping is deterministic),
// decodes up to `max_batch_sentences` at a time on the arena's device (greedy when
// beam_size == 1, beam search otherwise) and returns results in the input order.
std::vector<Hypothesis> translate_sentences(const Seq2SeqModel& model, const ParameterArena& arena,
                                            const std::vector<std::vector<int32_t>>& sources,
                                            const DecodeOptions& o, int max_batch_sentences);

}  // namespace sl
