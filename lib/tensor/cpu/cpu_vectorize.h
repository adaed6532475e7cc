#pragma once
// Include FIRST in every CPU kernel file (before any other header, so that every function of
// the file, the standard library's inline ones included, gets the same options and inlines).
//
// g++ 12 under the default -ftrapping-math will not if-convert a select on a float compare
// (other than a plain min/max): one `x < c ? a : b` in a loop body keeps the loop scalar.
// The kernels never enable floating-point exceptions, so trapping math buys nothing here.
// (-fno-math-errno would also vectorise Adam's sqrt, but g++ ignores it in this pragma: it
// has to come from the compile flags.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif
