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

constexpr int kInputErrorExitCode = 2;

}  // namespace sl
