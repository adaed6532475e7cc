#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/parallel_corpus.h"
#include "data/token_pair.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace sl {

struct SentencePieceOptions {
  int vocab_size = 8000;
  // Seeds SentencePiece's sampler of training sentences (used only when the corpus has
  // more than max_sentences sentences).
  uint64_t seed = 1;
  size_t max_sentences = 2000000;
  // SentencePiece's normaliser: "nmt_nfkc" (its default) or "identity" (text comes back
  // byte for byte, e.g. U+2026 stays "…").
  std::string normalization = "nmt_nfkc";
};

// A joint source+target unigram SentencePiece model with the fixed special ids of
// data/vocab.h. Copies share one immutable processor; encode/decode are thread-safe.
class SentencePieceVocab {
 public:
  // Loads a model file; InputError when it is missing, corrupt, or its special ids differ
  // from data/vocab.h.
  static SentencePieceVocab load(const std::string& model_path);
  // From the bytes of a model file (e.g. embedded in a checkpoint); `where` names them in
  // errors and is what path() returns.
  static SentencePieceVocab from_bytes(const std::string& bytes, const std::string& where);

  // Trains on `sentences` (single-threaded, so the same input and options give the same
  // model bytes) and writes the model to `model_path` atomically.
  static SentencePieceVocab train(const std::vector<std::string>& sentences,
                                  const SentencePieceOptions& options,
                                  const std::string& model_path);

  // Uses `model_dir`/spm.<vocab_size>.model when present, else trains it on the source and
  // target sides of `corpus`. A `.fingerprint` file beside the model records a hash of the
  // training sentences and options; a cached model whose fingerprint disagrees is an
  // InputError (it was trained on other data), never silently reused or overwritten.
  static SentencePieceVocab load_or_train(const ParallelCorpus& corpus,
                                          const SentencePieceOptions& options,
                                          const std::string& model_dir);

  static std::string model_file_name(int vocab_size);  // "spm.<vocab_size>.model"

  std::vector<int32_t> encode(const std::string& text) const;
  // Skips pad and bos, stops at the first eos.
  std::string decode(const std::vector<int32_t>& ids) const;

  int size() const;
  std::string piece(int32_t id) const;
  const std::string& path() const { return path_; }
  // The model as the bytes of a model file (from_bytes(bytes()) is the same vocabulary).
  std::string bytes() const;

 private:
  SentencePieceVocab(std::shared_ptr<const sentencepiece::SentencePieceProcessor> p,
                     std::string path);
  std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor_;
  std::string path_;
};

// Encodes both sides of every pair (no BOS/EOS added).
std::vector<TokenPair> encode_corpus(const ParallelCorpus& corpus,
                                     const SentencePieceVocab& vocab);

}  // namespace sl
