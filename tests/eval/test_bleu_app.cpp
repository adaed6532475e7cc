// The bleu command-line tool: output format, JSON, stdin, and its input errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>

#include "eval/metrics/sacrebleu_compat.h"
#include "fixture_io.h"

namespace sl {
namespace {

struct AppRun {
  int exit_code;
  std::string out, err;
};

AppRun run_app(test::ScratchDir& dir, const std::string& args, const std::string& stdin_file = "") {
  static int counter = 0;
  const std::string tag = std::to_string(counter++);
  const std::string out = dir.reserve("out" + tag), err = dir.reserve("err" + tag);
  std::string cmd = std::string("'") + SL_BLEU_APP + "' " + args + " > " + out + " 2> " + err;
  if (!stdin_file.empty()) cmd += " < " + stdin_file;
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, test::slurp(out), test::slurp(err)};
}

const nlohmann::json& fixture_case(const std::string& name) {
  static const nlohmann::json fixture = test::load_fixture("corpus_scores.json");
  for (const auto& c : fixture.at("cases")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("no fixture case " + name);
}

TEST(BleuApp, PrintsSacrebleuTextAndSignature) {
  test::ScratchDir dir;
  const auto& c = fixture_case("german_umlauts");
  const std::string ref = dir.write("ref.txt", test::join_lines(c.at("refs")));
  const std::string hyp = dir.write("hyp.txt", test::join_lines(c.at("hyps")));
  const AppRun r = run_app(dir, ref + " " + hyp + " --chrf");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string expected =
      c.at("bleu").at("text").get<std::string>() + "\nBLEU signature: " +
      c.at("bleu").at("signature").get<std::string>() + "\n" +
      c.at("chrf").at("text").get<std::string>() + "\nchrF2 signature: " +
      c.at("chrf").at("signature").get<std::string>() + "\n";
  EXPECT_EQ(r.out, expected);
}

TEST(BleuApp, JsonAndStdin) {
  test::ScratchDir dir;
  const auto& c = fixture_case("random_500");
  const std::string ref = dir.write("ref.txt", test::join_lines(c.at("refs")));
  const std::string hyp = dir.write("hyp.txt", test::join_lines(c.at("hyps")));
  const AppRun r = run_app(dir, ref + " - --json", hyp);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("name"), "BLEU");
  EXPECT_NEAR(j.at("score_unrounded").get<double>(), c.at("bleu").at("score").get<double>(),
              1e-4);
  EXPECT_EQ(j.at("hyp_len"), c.at("bleu").at("hyp_len"));
  EXPECT_EQ(j.at("tok"), "13a");
  EXPECT_EQ(j.at("version"), kSacrebleuCompatibleVersion);

  const AppRun both = run_app(dir, ref + " " + hyp + " --json --chrf");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const nlohmann::json arr = nlohmann::json::parse(both.out);
  ASSERT_TRUE(arr.is_array());
  ASSERT_EQ(arr.size(), 2u);
  EXPECT_EQ(arr[1].at("name"), "chrF2");
  EXPECT_NEAR(arr[1].at("score_unrounded").get<double>(), c.at("chrf").at("score").get<double>(),
              1e-4);
}

TEST(BleuApp, LastLineWithoutNewlineCounts) {
  test::ScratchDir dir;
  const std::string ref = dir.write("ref.txt", "a b c d\ne f g h");
  const std::string hyp = dir.write("hyp.txt", "a b c d\r\ne f g h\n");
  const AppRun r = run_app(dir, ref + " " + hyp);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 13), "BLEU = 100.00");
}

TEST(BleuApp, LineCountMismatchIsOneLineExit2) {
  test::ScratchDir dir;
  const std::string ref = dir.write("ref.txt", "a\nb\nc\n");
  const std::string hyp = dir.write("hyp.txt", "a\nb\n");
  const AppRun r = run_app(dir, ref + " " + hyp);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find(ref), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(hyp), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" 2 "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" 3 "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST(BleuApp, OtherInputErrorsExit2) {
  test::ScratchDir dir;
  const std::string ref = dir.write("ref.txt", "ok\n");
  const std::string bad = dir.write("bad.txt", "\xFF\n");
  const AppRun missing = run_app(dir, dir.path() + "/nope.txt " + ref);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.txt"), std::string::npos) << missing.err;
  const AppRun utf8 = run_app(dir, ref + " " + bad);
  EXPECT_EQ(utf8.exit_code, 2);
  EXPECT_NE(utf8.err.find("bad.txt:1"), std::string::npos) << utf8.err;
  EXPECT_NE(utf8.err.find("at byte 1 "), std::string::npos) << utf8.err;  // 1-based, as translate's
  // a folder read as an empty file ("has 0 lines" / "is empty") before it was named as one
  for (const std::string& args : {ref + " " + dir.path(), dir.path() + " " + ref}) {
    const AppRun folder = run_app(dir, args);
    EXPECT_EQ(folder.exit_code, 2) << args;
    EXPECT_NE(folder.err.find(dir.path() + ": is a directory; expected a file"), std::string::npos) << folder.err;
  }
  // a command-line mistake: one line naming the program, like any other bad input
  const AppRun no_ref = run_app(dir, "");  // REF_FILE is required
  EXPECT_EQ(no_ref.exit_code, 2);
  EXPECT_EQ(no_ref.err.rfind("bleu: error: REF_FILE is required", 0), 0u) << no_ref.err;
  EXPECT_EQ(no_ref.err.find('\n'), no_ref.err.size() - 1) << no_ref.err;
  EXPECT_EQ(run_app(dir, "--help").exit_code, 0);
}

}  // namespace
}  // namespace sl
