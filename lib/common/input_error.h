#pragma once
#include <stdexcept>
#include <string>

namespace sl {

// Bad input from the user: a config, corpus, flag or checkpoint. The message is a single
// line "WHERE: what is wrong (expected ..., got ...)"; apps print it and exit with code 2.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& where, const std::string& what)
      : std::runtime_error(where + ": " + what), where_(where) {}
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

// The results directory is locked by another live run (common/dir_lock.h): the one input
// error a suite shared by several processes skips instead of stopping (--skip-busy).
class DirBusyError : public InputError {
 public:
  using InputError::InputError;
};

constexpr int kInputErrorExitCode = 2;

}  // namespace sl
