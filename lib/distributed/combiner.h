#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "distributed/gradient_exchange.h"

namespace sl {

// How node n turns the exchanged G into its update U_n (PAPER.md "sparse + local"):
//   none:    U_n = G
//   sum:     U_n = G + g_n
//   partial: U_n = (G - S_n) + g_n   (the own compressed part replaced by the exact one)
//   error:   U_n = G + E_n, then E_n = 0
// `grad` holds g_n on entry and U_n on return; the sums are elementwise in that order.
enum class CombinerKind { None, Sum, Partial, Error };

class Combiner {
 public:
  virtual ~Combiner() = default;
  virtual void combine(float* grad, const ExchangeResult& r, size_t P) const = 0;
};

std::unique_ptr<Combiner> make_combiner(CombinerKind kind);
CombinerKind combiner_from_name(const std::string& name);  // throws invalid_argument
const char* combiner_name(CombinerKind kind);

}  // namespace sl
