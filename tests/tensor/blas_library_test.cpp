// The run-time BLAS loader (lib/tensor/cpu/blas_library.h): no generic kernels on a CPU that has
// AVX2 / AVX-512, the correction of a generic choice, and what it reports.
#include "tensor/cpu/blas_library.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

namespace sl {
namespace {

TEST(BlasCoreIsa, NamesOpenBlasAndBlisCores) {
  EXPECT_EQ(blas::isa_of_core("Prescott"), "sse");
  EXPECT_EQ(blas::isa_of_core("Nehalem"), "sse");
  EXPECT_EQ(blas::isa_of_core("SandyBridge"), "avx");
  EXPECT_EQ(blas::isa_of_core("Haswell"), "avx2");
  EXPECT_EQ(blas::isa_of_core("Zen"), "avx2");
  EXPECT_EQ(blas::isa_of_core("SkylakeX"), "avx512");
  EXPECT_EQ(blas::isa_of_core("Cooperlake"), "avx512");
  EXPECT_EQ(blas::isa_of_core("skx"), "avx512");   // BLIS
  EXPECT_EQ(blas::isa_of_core("zen3"), "avx2");    // BLIS
  EXPECT_EQ(blas::isa_of_core("generic"), "sse");  // BLIS's reference kernels
  EXPECT_EQ(blas::isa_of_core("NewCore2030"), "unknown");
}

TEST(BlasCoreIsa, GenericMeansBelowAvx2OnAnAvx2Cpu) {
  EXPECT_TRUE(blas::is_generic_core("sse", "avx512"));
  EXPECT_TRUE(blas::is_generic_core("avx", "avx2"));
  EXPECT_FALSE(blas::is_generic_core("avx2", "avx512"));  // older, not generic
  EXPECT_FALSE(blas::is_generic_core("sse", "sse"));      // the best this CPU has
  EXPECT_FALSE(blas::is_generic_core("sse", "avx"));
  EXPECT_FALSE(blas::is_generic_core("unknown", "avx512"));
  EXPECT_FALSE(blas::is_generic_core("auto", "avx512"));  // MKL dispatches itself
}

// The acceptance check of issue 28: fails when the BLAS in use runs a generic core on a CPU
// with AVX2 or AVX-512 (tests/tensor/CMakeLists.txt also runs it with OPENBLAS_CORETYPE=Prescott
// forced, where it must fail).
TEST(BlasLibrary, LoadedCoreIsNotGenericOnThisCpu) {
  const blas::Info& i = blas::info();
  std::printf("BLAS: %s\n", blas::describe().c_str());
  EXPECT_FALSE(blas::is_generic_core(i.core_isa, i.cpu_isa))
      << i.library << " runs its generic core " << i.core << " (" << i.core_isa
      << ") on a CPU with " << i.cpu_isa;
  EXPECT_EQ(i.warning.empty(), !blas::is_generic_core(i.core_isa, i.cpu_isa)) << i.warning;
  EXPECT_FALSE(i.path.empty());
  EXPECT_FALSE(i.library.empty());
}

// Run by ctest with SL_BLAS_TEST_FIRST_CORE=Prescott: the library is first loaded with that
// core, as if it did not know this CPU, and must have been reloaded with a real one.
TEST(BlasLibrary, CorrectsAGenericFirstChoice) {
  const char* first = std::getenv("SL_BLAS_TEST_FIRST_CORE");
  if (!first) GTEST_SKIP() << "run by ctest with SL_BLAS_TEST_FIRST_CORE set";
  const blas::Info& i = blas::info();
  if (blas::isa_rank(i.cpu_isa) < blas::isa_rank("avx2"))
    GTEST_SKIP() << "this CPU has no AVX2: nothing to correct";
  if (i.library != "OpenBLAS" && i.library != "scipy-openblas")
    GTEST_SKIP() << i.library << " chooses its kernels itself";
  EXPECT_EQ(i.corrected_from, first);
  EXPECT_FALSE(blas::is_generic_core(i.core_isa, i.cpu_isa)) << blas::describe();
  EXPECT_TRUE(i.warning.empty()) << i.warning;
}

TEST(BlasLibrary, SgemmComputesTheProduct) {
  // [2x3] x [3x2] and its transposed forms against hand values.
  const std::vector<float> A = {1, 2, 3, 4, 5, 6}, B = {7, 8, 9, 10, 11, 12};
  std::vector<float> C(4, -1.0f);
  blas::sgemm(false, false, 2, 2, 3, 1.0f, A.data(), 3, B.data(), 2, 0.0f, C.data(), 2);
  EXPECT_EQ(C, (std::vector<float>{58, 64, 139, 154}));
  // A^T stored as 3x2: the same product through trans_a.
  const std::vector<float> At = {1, 4, 2, 5, 3, 6};
  std::vector<float> D(4, 1.0f);
  blas::sgemm(true, false, 2, 2, 3, 2.0f, At.data(), 2, B.data(), 2, 1.0f, D.data(), 2);
  EXPECT_EQ(D, (std::vector<float>{117, 129, 279, 309}));
}

}  // namespace
}  // namespace sl
