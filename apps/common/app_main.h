#pragma once
// The error handling every app's main() shares: CLI mistakes and bad input exit with code 2
// and one line; anything else is a fatal error (exit 1).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <string>

#include "common/input_error.h"

namespace sl::app {

// Parses argv (plus `check`, which may throw CLI::ParseError); returns -1 when the app
// should go on, else the exit code (0 for --help).
inline int parse(CLI::App& app, int argc, char** argv, const std::function<void()>& check = {}) {
  try {
    app.parse(argc, argv);
    if (check) check();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // One line, as for every other bad input (CLI11's own print takes two, without the
    // program's name).
    std::string name = argc > 0 ? argv[0] : "";
    name = name.substr(name.rfind('/') + 1);
    std::fprintf(stderr, "%s: error: %s (see --help)\n", name.c_str(), e.what());
    return kInputErrorExitCode;
  }
  return -1;
}

// Runs body; InputError -> "<input_prefix><message>", exit 2; other exceptions ->
// "<fatal_prefix><message>", exit 1.
inline int run(const std::string& input_prefix, const std::string& fatal_prefix,
               const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s%s\n", input_prefix.c_str(), e.what());
    return kInputErrorExitCode;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s%s\n", fatal_prefix.c_str(), e.what());
    return 1;
  }
}

}  // namespace sl::app
