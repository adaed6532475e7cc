#pragma once
#include <memory>
#include <string>
#include <vector>

#include "data/token_pair.h"
#include "distributed/communicator.h"
#include "eval/metrics/bleu.h"
#include "eval/metrics/chrf.h"
#include "models/seq2seq_model.h"
#include "train/training_job.h"

namespace sl {

struct ValidationResult {
  double ce = 0;  // per-token cross-entropy, no label smoothing (dev only)
  int64_t ce_tokens = 0;
  BleuScore bleu;
  ChrfScore chrf;
  int64_t sentences = 0;                // decoded
  std::vector<std::string> hypotheses;  // rank 0 only, in corpus order
};

// Scores ONE set of parameters (rank `source_rank`'s) on a held-out set, with the work split
// over all nodes: the parameters are sent to every node, node n scores sentences
// n, n+N, n+2N, ..., and rank 0 assembles the hypotheses and computes corpus BLEU/chrF on
// the original order. A collective: every node calls it. The traffic is not training
// traffic and is not booked in any StepStats.
class Validator {
 public:
  // Builds its own copy of the model (a model object declares one arena).
  Validator(const TrainingJob& job, Device& dev);

  // params: this node's flat parameters (only source_rank's are used).
  ValidationResult evaluate(Communicator& comm, const std::vector<float>& params, int source_rank,
                            const std::vector<TokenPair>& pairs,
                            const std::vector<std::string>& refs, bool with_ce,
                            int64_t max_sentences);

 private:
  double summed_ce(const std::vector<TokenPair>& pairs, const std::vector<uint32_t>& rows,
                   int64_t* tokens);

  const TrainingJob& job_;
  std::unique_ptr<Seq2SeqModel> model_;
  Device& dev_;
  ParameterArena arena_;  // the parameters being scored
};

}  // namespace sl
