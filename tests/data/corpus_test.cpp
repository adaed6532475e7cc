#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <iterator>

#include "common/input_error.h"
#include "data/parallel_corpus.h"
#include "data/text_lines.h"
#include "common/utf8.h"
#include "temp_dir.h"

namespace sl {
namespace {

using test::TempDir;

std::string write_gz(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  return path;
}

// Runs `f`, expects an InputError and returns its message.
template <typename F>
std::string input_error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected InputError";
  return "";
}

TEST(Utf8, AcceptsWellFormedAndFindsFirstBadByte) {
  EXPECT_EQ(find_invalid_utf8("Grüße, »Welt« \xF0\x9F\x98\x80"), std::nullopt);
  EXPECT_EQ(find_invalid_utf8("ab\xC3\x28"), 2u);          // bad continuation
  EXPECT_EQ(find_invalid_utf8("\xC0\xAF"), 0u);            // overlong '/'
  EXPECT_EQ(find_invalid_utf8("x\xED\xA0\x80"), 1u);       // UTF-16 surrogate
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);    // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("abc\xE2\x82"), 3u);         // truncated at end
}

TEST(TextLines, SplitsLinesKeepsEmptyOnesAndStripsCarriageReturn) {
  TempDir dir;
  auto lines = read_text_lines(dir.write("a.txt", "eins\r\n\nzwei\ndrei"));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "eins");
  EXPECT_EQ(lines[1], "");
  EXPECT_EQ(lines[3], "drei");
}

TEST(TextLines, ReadsGzipLikePlain) {
  TempDir dir;
  const std::string text = "Datei nicht gefunden\nÖffnen …\n";
  EXPECT_EQ(read_text_lines(write_gz(dir, "a.gz", text)),
            read_text_lines(dir.write("a.txt", text)));
  EXPECT_EQ(read_text_lines(write_gz(dir, "b.gz", text)).size(), 2u);
}

TEST(TextLines, RejectsTruncatedGzip) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "Zeile " + std::to_string(i) + "\n";
  const std::string gz = write_gz(dir, "full.gz", text);
  ASSERT_EQ(read_text_lines(gz).size(), 2000u);
  std::ifstream in(gz, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = dir.write("cut.gz", bytes.substr(0, bytes.size() / 2));
  EXPECT_NE(input_error_of([&] { read_text_lines(cut); }).find(cut), std::string::npos);
}

TEST(TextLines, RejectsEmptyAndMissingFilesByName) {
  TempDir dir;
  const std::string empty = dir.write("empty.de", "");
  std::string msg = input_error_of([&] { read_text_lines(empty); });
  EXPECT_NE(msg.find(empty), std::string::npos);
  EXPECT_NE(msg.find("empty"), std::string::npos);
  const std::string missing = dir.file("missing.de");
  EXPECT_NE(input_error_of([&] { read_text_lines(missing); }).find(missing), std::string::npos);
}

TEST(TextLines, RejectsInvalidUtf8NamingFileAndLine) {
  TempDir dir;
  const std::string path = dir.write("bad.en", "fine\nnot \xFF fine\n");
  const std::string msg = input_error_of([&] { read_text_lines(path); });
  EXPECT_NE(msg.find(path + ":2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("UTF-8"), std::string::npos) << msg;
}

TEST(ParallelCorpus, RejectsUnequalLineCountsNamingBothFiles) {
  TempDir dir;
  const std::string de = dir.write("x.de", "a\nb\nc\n");
  const std::string en = dir.write("x.en", "a\nb\n");
  const std::string msg = input_error_of([&] { ParallelCorpus::read(de, en); });
  EXPECT_NE(msg.find(de), std::string::npos) << msg;
  EXPECT_NE(msg.find(en), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 lines"), std::string::npos) << msg;
  EXPECT_NE(msg.find("has 2"), std::string::npos) << msg;
}

TEST(ParallelCorpus, ReadSplitFindsGzipFiles) {
  TempDir dir;
  write_gz(dir, "train.de.gz", "Hallo Welt\nDatei öffnen\n");
  dir.write("train.en", "Hello world\nOpen file\n");
  const auto c = ParallelCorpus::read_split(dir.file("train"), "de", "en");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c.source[1], "Datei öffnen");
  EXPECT_EQ(c.target[1], "Open file");
  EXPECT_EQ(c.source_path, dir.file("train.de.gz"));
}

TEST(ParallelCorpus, ReadsTheEmbeddedCorpora) {
  const std::string root = SL_SOURCE_DIR;
  const auto big = ParallelCorpus::read_split(root + "/data/debmsg-de-en/train", "de", "en");
  EXPECT_GE(big.size(), 40000u);
  for (const char* split : {"dev", "test"}) {
    EXPECT_EQ(ParallelCorpus::read_split(root + "/data/debmsg-de-en/" + split, "de", "en").size(),
              1000u);
  }
  const auto tiny = ParallelCorpus::read_split(root + "/data/tiny-de-en/train", "de", "en");
  EXPECT_EQ(tiny.size(), 2000u);
}

}  // namespace
}  // namespace sl
