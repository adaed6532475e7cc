#pragma once
#include <vector>

#include "eval/decoding/decode_options.h"
#include "models/seq2seq_model.h"

namespace sl {

// Arg-max decoding of every sentence of the batch at once (ties go to the lowest id).
// Finished sentences leave the batch. Uses bos_id, eos_id, the length limit and length_alpha
// (for normalized_score only) of `o`; beam_size is ignored. Result i belongs to source i.
std::vector<Hypothesis> greedy_decode(const Seq2SeqModel& model, const ParameterArena& arena,
                                      const SourceBatch& batch, const DecodeOptions& o);

}  // namespace sl
