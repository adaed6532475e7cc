// libFuzzer target: arbitrary bytes through sl::fuzz::corpus_input (one_input.h).
#include <cstddef>
#include <cstdint>
#include <string>

#include "one_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sl::fuzz::corpus_input(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
