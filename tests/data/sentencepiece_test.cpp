#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "data/batch_generator.h"
#include "data/parallel_corpus.h"
#include "data/sentencepiece_vocab.h"
#include "data/vocab.h"
#include "temp_dir.h"

namespace sl {
namespace {

using test::TempDir;

const ParallelCorpus& tiny() {
  static const ParallelCorpus c =
      ParallelCorpus::read_split(std::string(SL_SOURCE_DIR) + "/data/tiny-de-en/train", "de", "en");
  return c;
}

SentencePieceOptions small(int vocab = 500) {
  SentencePieceOptions o;
  o.vocab_size = vocab;
  return o;
}

// One trained model shared by the tests that only use it.
const SentencePieceVocab& trained() {
  static TempDir dir;
  static const SentencePieceVocab v =
      SentencePieceVocab::load_or_train(tiny(), small(), dir.path());
  return v;
}

TEST(SentencePieceVocab, HasTheFixedSpecialIds) {
  const auto& v = trained();
  EXPECT_EQ(v.size(), 500);
  EXPECT_EQ(v.piece(vocab::kPad), "<pad>");
  EXPECT_EQ(v.piece(vocab::kUnk), "<unk>");
  EXPECT_EQ(v.piece(vocab::kBos), "<s>");
  EXPECT_EQ(v.piece(vocab::kEos), "</s>");
}

TEST(SentencePieceVocab, RoundTripsTheCorpus) {
  const auto& v = trained();
  size_t exact = 0;
  for (size_t i = 0; i < tiny().size(); ++i) {
    for (const std::string* s : {&tiny().source[i], &tiny().target[i]}) {
      const auto ids = v.encode(*s);
      ASSERT_FALSE(ids.empty());
      for (int32_t id : ids) ASSERT_GT(id, vocab::kEos) << *s;  // no unk, no specials
      exact += v.decode(ids) == *s;
    }
  }
  // nmt_nfkc normalisation rewrites a few characters (e.g. U+2026 -> "..."); the rest must
  // come back byte for byte.
  EXPECT_GE(exact, 2 * tiny().size() * 97 / 100);
  EXPECT_EQ(v.decode(v.encode("Datei nicht gefunden")), "Datei nicht gefunden");
}

TEST(SentencePieceVocab, DecodeSkipsPadAndBosAndStopsAtEos) {
  const auto& v = trained();
  auto ids = v.encode("Open file");
  std::vector<int32_t> framed = {vocab::kBos};
  framed.insert(framed.end(), ids.begin(), ids.end());
  framed.push_back(vocab::kEos);
  framed.push_back(ids.front());
  framed.push_back(vocab::kPad);
  EXPECT_EQ(v.decode(framed), "Open file");
  EXPECT_THROW(v.decode({v.size()}), std::out_of_range);
}

TEST(SentencePieceVocab, TrainingTwiceGivesIdenticalModelBytes) {
  TempDir dir;
  std::vector<std::string> sentences(tiny().source);
  sentences.insert(sentences.end(), tiny().target.begin(), tiny().target.end());
  SentencePieceVocab::train(sentences, small(300), dir.file("a.model"));
  SentencePieceVocab::train(sentences, small(300), dir.file("b.model"));
  const std::string a = read_file(dir.file("a.model")), b = read_file(dir.file("b.model"));
  EXPECT_GT(a.size(), 1000u);
  EXPECT_TRUE(a == b) << "SentencePiece training is not reproducible";
}

TEST(SentencePieceVocab, LoadOrTrainReusesTheCachedModel) {
  TempDir dir;
  std::vector<std::string> few(tiny().source.begin(), tiny().source.begin() + 300);
  // A foreign model (vocab 150) under the cache name: it must be used, not retrained.
  SentencePieceVocab::train(few, small(150), dir.file(SentencePieceVocab::model_file_name(500)));
  const auto v = SentencePieceVocab::load_or_train(tiny(), small(500), dir.path());
  EXPECT_EQ(v.size(), 150);
  EXPECT_EQ(v.path(), dir.file("spm.500.model"));
}

TEST(SentencePieceVocab, LoadOrTrainRefusesAModelTrainedOnOtherData) {
  TempDir dir;
  ParallelCorpus a;
  a.source.assign(tiny().source.begin(), tiny().source.begin() + 300);
  a.target.assign(tiny().target.begin(), tiny().target.begin() + 300);
  SentencePieceVocab::load_or_train(a, small(200), dir.path());
  EXPECT_EQ(SentencePieceVocab::load_or_train(a, small(200), dir.path()).size(), 200);
  ParallelCorpus b = a;
  b.source[0] += " geändert";
  EXPECT_THROW(SentencePieceVocab::load_or_train(b, small(200), dir.path()), InputError);
}

TEST(SentencePieceVocab, MissingOrCorruptModelIsAnInputError) {
  TempDir dir;
  EXPECT_THROW(SentencePieceVocab::load(dir.file("none.model")), InputError);
  const std::string junk = dir.write("junk.model", "this is not a protobuf");
  try {
    SentencePieceVocab::load(junk);
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(junk), std::string::npos);
  }
}

TEST(SentencePieceVocab, EncodedTinyCorpusBatches) {
  auto pairs = encode_corpus(tiny(), trained());
  ASSERT_EQ(pairs.size(), tiny().size());
  BatchOptions o;
  o.max_tokens = 1000;
  o.max_length = 64;
  BatchGenerator gen(pairs, o);
  size_t rows = 0;
  for (size_t i = gen.batches_in_epoch(0); i > 0; --i) {
    const Batch b = gen.next();
    EXPECT_LE(static_cast<int64_t>(b.B) * b.T, o.max_tokens);
    rows += b.B;
  }
  EXPECT_EQ(rows + gen.dropped(), tiny().size());
}

}  // namespace
}  // namespace sl
