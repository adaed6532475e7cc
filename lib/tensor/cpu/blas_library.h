#pragma once
#include <string>

namespace sl::blas {

// The BLAS the CPU backend runs its products on, loaded at run time (dlopen) instead of
// linked, so that the program -- not the loader, before main -- decides which kernels run.
//
// Why: a BLAS built with DYNAMIC_ARCH picks its kernels ("core") from the CPU model when it is
// loaded. Debian's OpenBLAS 0.3.21 does not know Intel's newer Xeons (family 6 model 207) and
// falls back to its Prescott (SSE3) core there: 3-4x slower sgemm on a CPU with AVX-512. After
// loading, the core it chose is compared with the CPU's features; a core below AVX2 on a CPU
// that has AVX2 (+FMA) is corrected by loading the library again with OPENBLAS_CORETYPE set
// (SkylakeX for AVX-512, Haswell / Zen for AVX2). A core the user asked for with
// OPENBLAS_CORETYPE is kept, with a warning if it is generic.
//
// Which library: SL_BLAS in the environment (a name: openblas, blis, mkl, scipy-openblas; or a
// path to a shared library), else the build's default (CMake SL_BLAS, normally Debian's
// libopenblas.so.0, found through the ordinary search path, including the executable's
// RUNPATH).
struct Info {
  std::string library;         // "OpenBLAS", "BLIS", "MKL", "scipy-openblas" (OpenBLAS)
  std::string version;         // e.g. "0.3.21"; "" when the library does not say
  std::string core;            // the kernels in use, e.g. "SkylakeX", "skx"; "" unknown
  std::string core_isa;        // ISA of those kernels: avx512, avx2, avx, sse, auto, unknown
  std::string path;            // the file actually loaded
  std::string cpu_isa;         // the best the CPU (and OS) offers: avx512, avx2, avx, sse
  std::string cpu_model;       // /proc/cpuinfo "model name"
  std::string corrected_from;  // the generic core the library chose before it was corrected
  std::string warning;         // one line when a generic core runs on an AVX2/AVX-512 CPU
};

// Loads the library on first use (thread-safe). Throws InputError ("SL_BLAS: ...") when the
// library SL_BLAS names cannot be loaded, std::runtime_error naming the library and dlerror()
// when the build's default cannot, or when it lacks sgemm.
const Info& info();

// "OpenBLAS 0.3.21, core SkylakeX (avx512) on Intel(R) Xeon(R) ... (avx512)"
std::string describe();

// Row-major C = alpha op(A) op(B) + beta C, as cblas_sgemm(CblasRowMajor, ...).
void sgemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A, int lda,
           const float* B, int ldb, float beta, float* C, int ldc);

// The library's own thread count (OpenBLAS / BLIS / MKL setter; a no-op if it has none).
void set_threads(int n);

// ISA level of a BLAS core name as OpenBLAS / BLIS name them ("Prescott" -> sse,
// "Haswell" -> avx2, "SkylakeX" -> avx512, "zen3" -> avx2); "unknown" for names not listed.
std::string isa_of_core(const std::string& core);

// Ordering of ISA names: sse 1 < avx 2 < avx2 3 < avx512 4; 0 for anything else.
int isa_rank(const std::string& isa);

// True when `core_isa` is below AVX2 while `cpu_isa` is AVX2 or AVX-512: the case this file
// exists to prevent (unknown or auto-dispatching cores are not generic).
bool is_generic_core(const std::string& core_isa, const std::string& cpu_isa);

}  // namespace sl::blas
