#include "data/sentencepiece_vocab.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#include <sys/stat.h>

#include <sstream>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/counter_rng.h"
#include "common/input_error.h"
#include "data/vocab.h"

namespace sl {
namespace {

using Processor = sentencepiece::SentencePieceProcessor;

class VectorSentenceIterator : public sentencepiece::SentenceIterator {
 public:
  explicit VectorSentenceIterator(const std::vector<std::string>& s) : s_(s) {}
  bool done() const override { return i_ >= s_.size(); }
  void Next() override { ++i_; }
  const std::string& value() const override { return s_[i_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& s_;
  size_t i_ = 0;
};

bool file_exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::shared_ptr<const Processor> processor_from(const std::string& serialized,
                                                const std::string& where) {
  auto p = std::make_shared<Processor>();
  const auto status = p->LoadFromSerializedProto(serialized);
  if (!status.ok()) {
    throw InputError(where, "not a SentencePiece model (" + status.ToString() + ")");
  }
  if (p->pad_id() != vocab::kPad || p->unk_id() != vocab::kUnk || p->bos_id() != vocab::kBos ||
      p->eos_id() != vocab::kEos) {
    throw InputError(where, "special ids pad/unk/bos/eos are " + std::to_string(p->pad_id()) +
                                "/" + std::to_string(p->unk_id()) + "/" +
                                std::to_string(p->bos_id()) + "/" +
                                std::to_string(p->eos_id()) + " (expected 0/1/2/3)");
  }
  return p;
}

// Hex of a 64-bit hash over the options and every sentence (length-prefixed so that
// sentence boundaries count).
std::string fingerprint(const std::vector<std::string>& sentences,
                        const SentencePieceOptions& o) {
  uint64_t h = counter_hash(o.seed, static_cast<uint64_t>(o.vocab_size), o.max_sentences);
  for (unsigned char c : o.normalization) h = (h ^ c) * 0x100000001B3ull;
  for (const auto& s : sentences) {
    h = splitmix64(h ^ s.size());
    for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  }
  std::ostringstream out;
  out << std::hex << h << " sentences=" << std::dec << sentences.size()
      << " vocab_size=" << o.vocab_size << " seed=" << o.seed
      << " max_sentences=" << o.max_sentences << " normalization=" << o.normalization << "\n";
  return out.str();
}

}  // namespace

SentencePieceVocab::SentencePieceVocab(std::shared_ptr<const Processor> p, std::string path)
    : processor_(std::move(p)), path_(std::move(path)) {}

std::string SentencePieceVocab::model_file_name(int vocab_size) {
  return "spm." + std::to_string(vocab_size) + ".model";
}

SentencePieceVocab SentencePieceVocab::load(const std::string& model_path) {
  if (!file_exists(model_path)) throw InputError(model_path, "SentencePiece model not found");
  return SentencePieceVocab(processor_from(read_file(model_path), model_path), model_path);
}

SentencePieceVocab SentencePieceVocab::from_bytes(const std::string& bytes,
                                                  const std::string& where) {
  return SentencePieceVocab(processor_from(bytes, where), where);
}

std::string SentencePieceVocab::bytes() const { return processor_->serialized_model_proto(); }

SentencePieceVocab SentencePieceVocab::train(const std::vector<std::string>& sentences,
                                             const SentencePieceOptions& o,
                                             const std::string& model_path) {
  if (o.vocab_size < 8) {
    throw InputError("vocab_size", "is " + std::to_string(o.vocab_size) + " (expected >= 8)");
  }
  if (o.normalization.empty() ||
      o.normalization.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos) {
    throw InputError("normalization", "is \"" + o.normalization +
                                          "\" (expected a SentencePiece rule name such as "
                                          "nmt_nfkc or identity)");
  }
  std::ostringstream args;
  args << "--model_type=unigram --vocab_size=" << o.vocab_size
       << " --character_coverage=1.0 --pad_id=0 --unk_id=1 --bos_id=2 --eos_id=3"
       << " --num_threads=1 --input_sentence_size=" << o.max_sentences
       << " --shuffle_input_sentence=true --hard_vocab_limit=true --minloglevel=2"
       << " --normalization_rule_name=" << o.normalization;
  sentencepiece::SetRandomGeneratorSeed(static_cast<unsigned int>(o.seed));
  VectorSentenceIterator it(sentences);
  std::string serialized;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args.str(), &it, &serialized);
  if (!status.ok()) {
    throw InputError(model_path, "SentencePiece training failed for vocab_size " + std::to_string(o.vocab_size) +
                                     " (" + status.ToString() + ")");
  }
  auto processor = processor_from(serialized, model_path);
  write_file_atomic(model_path, serialized);
  return SentencePieceVocab(std::move(processor), model_path);
}

SentencePieceVocab SentencePieceVocab::load_or_train(const ParallelCorpus& corpus,
                                                     const SentencePieceOptions& o,
                                                     const std::string& model_dir) {
  std::vector<std::string> sentences;
  sentences.reserve(2 * corpus.size());
  sentences.insert(sentences.end(), corpus.source.begin(), corpus.source.end());
  sentences.insert(sentences.end(), corpus.target.begin(), corpus.target.end());
  const std::string model_path = model_dir + "/" + model_file_name(o.vocab_size);
  const std::string print_path = model_path + ".fingerprint";
  const std::string print = fingerprint(sentences, o);
  if (file_exists(model_path)) {
    if (file_exists(print_path) && read_file(print_path) != print) {
      throw InputError(model_path, "was trained on other sentences or options (fingerprint " +
                                       print_path + " differs); delete it or choose another "
                                       "model directory");
    }
    return load(model_path);
  }
  make_dirs(model_dir);
  SentencePieceVocab v = train(sentences, o, model_path);
  write_file_atomic(print_path, print);
  return v;
}

std::vector<int32_t> SentencePieceVocab::encode(const std::string& text) const {
  std::vector<int> ids;
  const auto status = processor_->Encode(text, &ids);
  if (!status.ok()) throw InputError(path_, "cannot encode text: " + status.ToString());
  return std::vector<int32_t>(ids.begin(), ids.end());
}

std::string SentencePieceVocab::decode(const std::vector<int32_t>& ids) const {
  std::vector<int> kept;
  for (int32_t id : ids) {
    if (id == vocab::kEos) break;
    if (id < 0 || id >= size()) {
      throw std::out_of_range("SentencePieceVocab::decode: id " + std::to_string(id) +
                              " outside [0, " + std::to_string(size()) + ")");
    }
    if (id != vocab::kPad && id != vocab::kBos) kept.push_back(id);
  }
  std::string text;
  const auto status = processor_->Decode(kept, &text);
  if (!status.ok()) throw InputError(path_, "cannot decode ids: " + status.ToString());
  return text;
}

int SentencePieceVocab::size() const { return processor_->GetPieceSize(); }

std::string SentencePieceVocab::piece(int32_t id) const { return processor_->IdToPiece(id); }

std::vector<TokenPair> encode_corpus(const ParallelCorpus& corpus,
                                     const SentencePieceVocab& vocab) {
  std::vector<TokenPair> out(corpus.size());
  for (size_t i = 0; i < corpus.size(); ++i) {
    out[i].src = vocab.encode(corpus.source[i]);
    out[i].tgt = vocab.encode(corpus.target[i]);
  }
  return out;
}

}  // namespace sl
