#include "train/validator.h"

#include <algorithm>
#include <cstring>

#include "autograd/ops.h"
#include "data/batch.h"
#include "data/vocab.h"
#include "eval/decoding/translate_sentences.h"

namespace sl {

namespace {

std::vector<uint8_t> pack_strings(const std::vector<std::string>& v) {
  std::vector<uint8_t> out;
  for (const std::string& s : v) {
    uint32_t n = static_cast<uint32_t>(s.size());
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&n);
    out.insert(out.end(), p, p + 4);
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

std::vector<std::string> unpack_strings(const std::vector<uint8_t>& b) {
  std::vector<std::string> v;
  for (size_t pos = 0; pos + 4 <= b.size();) {
    uint32_t n;
    std::memcpy(&n, b.data() + pos, 4);
    pos += 4;
    v.emplace_back(reinterpret_cast<const char*>(b.data() + pos), n);
    pos += n;
  }
  return v;
}

}  // namespace

Validator::Validator(const TrainingJob& job, Device& dev)
    : job_(job), model_(make_model(job.model)), dev_(dev), arena_(dev) {
  model_->declare(arena_);
  arena_.allocate();
}

double Validator::summed_ce(const std::vector<TokenPair>& pairs, const std::vector<uint32_t>& rows,
                            int64_t* tokens) {
  // Length-sorted batches of at most batch_tokens target tokens (padding included).
  std::vector<uint32_t> order = rows;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return pairs[a].tgt.size() < pairs[b].tgt.size();
  });
  double total = 0;
  *tokens = 0;
  size_t i = 0;
  while (i < order.size()) {
    size_t j = i;
    size_t longest = 0;
    while (j < order.size()) {
      size_t len = std::max(longest, pairs[order[j]].tgt.size() + 1);
      if (j > i && static_cast<int64_t>(len * (j - i + 1)) > job_.valid.batch_tokens) break;
      longest = len;
      ++j;
    }
    std::vector<uint32_t> idx(order.begin() + i, order.begin() + j);
    Batch b = make_batch(pairs, idx);
    ModelBatch mb =
        make_model_batch(dev_, b.B, b.S, b.T, b.src, b.src_lengths, b.tgt_in, b.tgt_out);
    Graph g(dev_, /*dropout_enabled=*/false, 0);
    Var logits = model_->logits(g, arena_, mb);
    Var flat = ops::reshape(logits, Shape{static_cast<int64_t>(mb.B) * mb.T, model_->vocab_size()});
    Tensor targets = mb.tgt_out.view(Shape{static_cast<int64_t>(mb.B) * mb.T});
    Var ce = ops::cross_entropy(flat, targets, 0.0f, vocab::kPad);
    total += ce.value().to_host()[0];
    *tokens += mb.target_tokens;
    i = j;
  }
  return total;
}

ValidationResult Validator::evaluate(Communicator& comm, const std::vector<float>& params,
                                     int source_rank, const std::vector<TokenPair>& pairs,
                                     const std::vector<std::string>& refs, bool with_ce,
                                     int64_t max_sentences) {
  const int N = comm.size(), r = comm.rank();
  // Every node scores source_rank's parameters.
  std::vector<uint8_t> mine;
  if (r == source_rank) {
    mine.resize(params.size() * sizeof(float));
    std::memcpy(mine.data(), params.data(), mine.size());
  }
  std::vector<std::vector<uint8_t>> all;
  comm.allgather_bytes(mine, all);
  dev_.from_host(arena_.values().f32(), all[source_rank].data(), all[source_rank].size());
  all.clear();

  ValidationResult res;
  // Cross-entropy over all sentences, node n taking rows n, n+N, ...
  if (with_ce) {
    std::vector<uint32_t> rows;
    for (size_t i = r; i < pairs.size(); i += N) rows.push_back(static_cast<uint32_t>(i));
    int64_t tokens = 0;
    const double ce = summed_ce(pairs, rows, &tokens);
    std::vector<uint8_t> buf(16);
    std::memcpy(buf.data(), &ce, 8);
    std::memcpy(buf.data() + 8, &tokens, 8);
    comm.allgather_bytes(buf, all);
    double sum = 0;
    for (auto& b : all) {
      double c;
      int64_t t;
      std::memcpy(&c, b.data(), 8);
      std::memcpy(&t, b.data() + 8, 8);
      sum += c;
      res.ce_tokens += t;
    }
    res.ce = res.ce_tokens ? sum / static_cast<double>(res.ce_tokens) : 0.0;
  }

  // BLEU on the first max_sentences sentences.
  const size_t n = std::min<size_t>(pairs.size(), static_cast<size_t>(max_sentences));
  std::vector<std::vector<int32_t>> sources;
  for (size_t i = r; i < n; i += N) {
    std::vector<int32_t> s = pairs[i].src;
    s.push_back(vocab::kEos);  // sources are trained with EOS (data/batch.h)
    sources.push_back(std::move(s));
  }
  std::vector<std::string> hyps_mine;
  if (!sources.empty()) {
    std::vector<Hypothesis> out = translate_sentences(*model_, arena_, sources, job_.valid.decode,
                                                      static_cast<int>(job_.valid.batch_sentences));
    for (auto& h : out) hyps_mine.push_back(job_.data->vocab->decode(h.tokens));
  }
  comm.allgather_bytes(pack_strings(hyps_mine), all);
  res.sentences = static_cast<int64_t>(n);
  if (r == 0) {
    std::vector<std::vector<std::string>> per_node;
    for (auto& b : all) per_node.push_back(unpack_strings(b));
    res.hypotheses.resize(n);
    for (size_t i = 0; i < n; ++i) res.hypotheses[i] = per_node[i % N][i / N];
    std::vector<std::string> r_refs(refs.begin(), refs.begin() + n);
    res.bleu = corpus_bleu(res.hypotheses, r_refs);
    res.chrf = corpus_chrf(res.hypotheses, r_refs);
  }
  return res;
}

}  // namespace sl
