#include "tensor/cpu/blas_library.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "common/input_error.h"

#ifndef SL_BLAS_DEFAULT
#define SL_BLAS_DEFAULT "openblas"
#endif

namespace sl::blas {
namespace {

// cblas_sgemm's enums, as every CBLAS defines them.
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                         float, float*, int);
using SetThreadsFn = void (*)(int);
using StringFn = char* (*)();

struct Loaded {
  void* handle = nullptr;
  SgemmFn sgemm = nullptr;
  SetThreadsFn set_threads = nullptr;
  Info info;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string cpu_isa() {
  __builtin_cpu_init();
  // libgcc's checks include the OS's support for the wider registers (XGETBV).
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "avx512";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "avx2";
  if (__builtin_cpu_supports("avx")) return "avx";
  return "sse";
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
      }
    }
  return "unknown CPU";
}

// File names to try for a library name; anything with a '/' is a path of its own.
std::vector<std::string> candidates(const std::string& name) {
  const std::string n = lower(name);
  if (name.find('/') != std::string::npos) return {name};
  if (n == "openblas") return {"libopenblas.so.0", "libopenblas.so"};
  if (n == "blis") return {"libblis.so.4", "libblis.so.3", "libblis.so"};
  if (n == "mkl") return {"libmkl_rt.so.2", "libmkl_rt.so.3", "libmkl_rt.so"};
  if (n == "scipy-openblas") return {"libscipy_openblas.so"};
  return {name};  // a bare file name, searched as dlopen searches
}

template <class F>
F symbol(void* h, std::initializer_list<const char*> names) {
  for (const char* s : names)
    if (void* p = dlsym(h, s)) return reinterpret_cast<F>(p);
  return nullptr;
}

std::string loaded_path(void* h, const std::string& fallback) {
  struct link_map* lm = nullptr;
  if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name) return lm->l_name;
  return fallback;
}

// "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..." -> "0.3.21"
std::string second_word(const char* s) {
  if (!s) return "";
  std::string str(s);
  const size_t a = str.find(' ');
  if (a == std::string::npos) return "";
  const size_t b = str.find(' ', a + 1);
  return str.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

// Opens the first candidate that loads and fills what the library says about itself.
Loaded open_library(const std::string& name, bool from_env) {
  Loaded L;
  std::string errors;
  for (const std::string& file : candidates(name)) {
    L.handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (L.handle) {
      L.info.path = loaded_path(L.handle, file);
      break;
    }
    const char* e = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (e ? e : file);
  }
  if (!L.handle) {
    const std::string what = "BLAS library \"" + name + "\" cannot be loaded (" + errors +
                             "); expected openblas, blis, mkl, scipy-openblas or a path";
    if (from_env) throw InputError("SL_BLAS", what);  // the user's setting: exit code 2
    throw std::runtime_error(what + " (install it, or set SL_BLAS)");
  }
  L.sgemm = symbol<SgemmFn>(L.handle, {"cblas_sgemm", "scipy_cblas_sgemm"});
  if (!L.sgemm) throw std::runtime_error("BLAS library " + L.info.path + " has no cblas_sgemm");
  L.set_threads =
      symbol<SetThreadsFn>(L.handle, {"openblas_set_num_threads", "scipy_openblas_set_num_threads",
                                      "bli_thread_set_num_threads", "MKL_Set_Num_Threads"});
  Info& I = L.info;
  if (auto cfg = symbol<StringFn>(L.handle, {"openblas_get_config"})) {
    I.library = "OpenBLAS";
    I.version = second_word(cfg());
  } else if (auto scfg = symbol<StringFn>(L.handle, {"scipy_openblas_get_config"})) {
    I.library = "scipy-openblas";
    I.version = second_word(scfg());
  }
  if (auto core =
          symbol<StringFn>(L.handle, {"openblas_get_corename", "scipy_openblas_get_corename"}))
    I.core = core();
  if (auto ver = symbol<StringFn>(L.handle, {"bli_info_get_version_str"})) {
    I.library = "BLIS";
    I.version = ver();
    using ArchId = int (*)();
    using ArchName = const char* (*)(int);
    auto id = symbol<ArchId>(L.handle, {"bli_arch_query_id"});
    auto arch = symbol<ArchName>(L.handle, {"bli_arch_string"});
    if (id && arch) I.core = arch(id());
  }
  using MklVersion = void (*)(char*, int);
  if (auto mv = symbol<MklVersion>(L.handle, {"MKL_Get_Version_String"})) {
    I.library = "MKL";
    char buf[256] = {0};
    mv(buf, sizeof buf - 1);
    std::string s(buf);
    const size_t v = s.find("Version ");
    I.version = v == std::string::npos ? s : s.substr(v + 8, s.find(' ', v + 8) - v - 8);
    I.core = "auto";  // MKL dispatches on the CPU's features itself
  }
  if (I.library.empty()) I.library = name;
  I.core_isa = I.core == "auto" ? "auto" : isa_of_core(I.core);
  return L;
}

// The core to ask OpenBLAS for on this CPU: what it would choose for a model it knows.
std::string corrected_core(const std::string& isa) {
  __builtin_cpu_init();
  if (isa == "avx512") return "SkylakeX";
  if (isa == "avx2") return __builtin_cpu_is("amd") ? "Zen" : "Haswell";
  return "";
}

bool is_openblas(const Info& i) { return i.library == "OpenBLAS" || i.library == "scipy-openblas"; }

Loaded load() {
  const char* env = std::getenv("SL_BLAS");
  const std::string name = env && *env ? env : SL_BLAS_DEFAULT;
  const char* user_core = std::getenv("OPENBLAS_CORETYPE");
  const std::string isa = cpu_isa();
  // Test hook: load first with this core, as if the library had chosen it for an unknown CPU,
  // so the correction below runs on any machine (tests/tensor/blas_library_test.cpp).
  const char* simulate = user_core ? nullptr : std::getenv("SL_BLAS_TEST_FIRST_CORE");
  if (simulate) setenv("OPENBLAS_CORETYPE", simulate, 1);
  Loaded L = open_library(name, env && *env);
  if (simulate) unsetenv("OPENBLAS_CORETYPE");
  L.info.cpu_isa = isa;
  L.info.cpu_model = cpu_model_name();

  const std::string target = corrected_core(isa);
  if (is_openblas(L.info) && !user_core && is_generic_core(L.info.core_isa, isa) &&
      !target.empty()) {
    const std::string chose = L.info.core, path = L.info.path;
    dlclose(L.handle);
    if (void* still = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
      // Something else holds the library (linked into the program?): its core stays.
      dlclose(still);
      L = open_library(path, false);
      L.info.warning = "BLAS: " + L.info.library + " chose the generic core " + chose +
                       " on a CPU with " + isa + " and could not be reloaded to correct it";
    } else {
      setenv("OPENBLAS_CORETYPE", target.c_str(), 1);
      L = open_library(path, false);
      unsetenv("OPENBLAS_CORETYPE");
      L.info.corrected_from = chose;
    }
    L.info.cpu_isa = isa;
    L.info.cpu_model = cpu_model_name();
  }
  if (L.info.warning.empty() && is_generic_core(L.info.core_isa, isa))
    L.info.warning = "BLAS: " + L.info.library + " runs its generic " + L.info.core +
                     " kernels on a CPU with " + isa +
                     (user_core ? " (OPENBLAS_CORETYPE=" + std::string(user_core) +
                                      " is set; unset it to let sparselocal choose)"
                                : "") +
                     ": products may run 3-4x slower than the CPU allows";
  return L;
}

Loaded& loaded() {
  static Loaded* L = nullptr;
  static std::once_flag once;
  std::call_once(once, [] { L = new Loaded(load()); });  // never unloaded: kernels may run late
  return *L;
}

}  // namespace

std::string isa_of_core(const std::string& core) {
  const std::string c = lower(core);
  static const char* avx512[] = {"skylakex", "cooperlake", "sapphirerapids", "skx", "knl",
                                 "zen4",     "zen5"};
  static const char* avx2[] = {"haswell", "zen", "zen2", "zen3", "excavator", "zen1"};
  static const char* avx[] = {"sandybridge", "bulldozer", "piledriver", "steamroller"};
  static const char* sse[] = {"prescott", "katmai",  "coppermine", "northwood",     "banias",
                              "core2",    "penryn",  "dunnington", "nehalem",       "atom",
                              "nano",     "athlon",  "opteron",    "opteron_sse3",  "barcelona",
                              "bobcat",   "generic", "penryn",     "x86_64_generic"};
  for (const char* n : avx512)
    if (c == n) return "avx512";
  for (const char* n : avx2)
    if (c == n) return "avx2";
  for (const char* n : avx)
    if (c == n) return "avx";
  for (const char* n : sse)
    if (c == n) return "sse";
  return "unknown";
}

int isa_rank(const std::string& isa) {
  if (isa == "sse") return 1;
  if (isa == "avx") return 2;
  if (isa == "avx2") return 3;
  if (isa == "avx512") return 4;
  return 0;
}

bool is_generic_core(const std::string& core_isa, const std::string& cpu_isa) {
  const int core = isa_rank(core_isa);
  return core > 0 && core < isa_rank("avx2") && isa_rank(cpu_isa) >= isa_rank("avx2");
}

const Info& info() { return loaded().info; }

std::string describe() {
  const Info& i = info();
  std::string s = i.library + (i.version.empty() ? "" : " " + i.version);
  if (!i.core.empty()) s += ", core " + i.core + " (" + i.core_isa + ")";
  if (!i.corrected_from.empty()) s += ", corrected from " + i.corrected_from;
  return s + " on " + i.cpu_model + " (" + i.cpu_isa + ")";
}

void sgemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha, const float* A, int lda,
           const float* B, int ldb, float beta, float* C, int ldc) {
  loaded().sgemm(kRowMajor, trans_a ? kTrans : kNoTrans, trans_b ? kTrans : kNoTrans, M, N, K,
                 alpha, A, lda, B, ldb, beta, C, ldc);
}

void set_threads(int n) {
  if (auto f = loaded().set_threads) f(n);
}

}  // namespace sl::blas
