#pragma once
#include <cstddef>
#include <cstdint>

namespace sl {

// Drop-ratio warm-up of the original code: rho_t = rho ^ (W / (1 + t)) for t < W, else rho.
// t is 0-based: the first step is t = 0 (rho_0 = rho^W, nearly dense), and t = W - 1 is the
// first step at the full rho. The exponent is a real division. W = 0 disables the warm-up.
double drop_ratio_at(double rho, int64_t W, int64_t t);

// How many values S_n keeps: round((1 - rho_t) * P), at least 1 (for P > 0), at most P.
size_t keep_count(size_t P, double rho_t);

}  // namespace sl
