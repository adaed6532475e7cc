#include "eval/decoding/translate_sentences.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "eval/decoding/beam_search.h"
#include "eval/decoding/greedy_decoder.h"

namespace sl {

std::vector<Hypothesis> translate_sentences(const Seq2SeqModel& model, const ParameterArena& arena,
                                            const std::vector<std::vector<int32_t>>& sources,
                                            const DecodeOptions& o, int max_batch_sentences) {
  if (max_batch_sentences < 1)
    throw std::invalid_argument("translate_sentences: batch size " +
                                std::to_string(max_batch_sentences) + " < 1");
  for (size_t i = 0; i < sources.size(); ++i)
    if (sources[i].empty())
      throw std::invalid_argument("translate_sentences: source " + std::to_string(i) +
                                  " is empty (append EOS to every source, as in training)");
  std::vector<size_t> order(sources.size());
  std::iota(order.begin(), order.end(), 0);
  // Similar lengths share a batch, so little time goes into padding.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sources[a].size() < sources[b].size(); });
  std::vector<Hypothesis> out(sources.size());
  for (size_t first = 0; first < order.size(); first += static_cast<size_t>(max_batch_sentences)) {
    const size_t last = std::min(order.size(), first + static_cast<size_t>(max_batch_sentences));
    std::vector<std::vector<int32_t>> group;
    for (size_t k = first; k < last; ++k) group.push_back(sources[order[k]]);
    const SourceBatch batch = make_source_batch(arena.device(), group);
    std::vector<Hypothesis> hyps = o.beam_size == 1 ? greedy_decode(model, arena, batch, o)
                                                    : beam_search(model, arena, batch, o);
    for (size_t k = first; k < last; ++k) out[order[k]] = std::move(hyps[k - first]);
  }
  return out;
}

}  // namespace sl
