#pragma once
#include <vector>

#include "eval/decoding/decode_options.h"
#include "models/seq2seq_model.h"

namespace sl {

// Beam search over every sentence of the batch at once, Marian style: each sentence starts
// with o.beam_size live hypotheses; each step keeps the best `live` extensions (score =
// sum of log-probs; ties go to the lower hypothesis, then the lower id); an extension
// ending in EOS or reaching the length limit is finished and the sentence's beam shrinks
// by one, until no live hypothesis is left. The result is the finished hypothesis with
// the best normalized_score. beam_size 1 gives exactly greedy_decode's output.
std::vector<Hypothesis> beam_search(const Seq2SeqModel& model, const ParameterArena& arena,
                                    const SourceBatch& batch, const DecodeOptions& o);

}  // namespace sl
