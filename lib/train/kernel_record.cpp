#include "train/kernel_record.h"

#include "tensor/cpu/blas_library.h"

namespace sl {

nlohmann::json blas_record() {
  try {
    const blas::Info& i = blas::info();
    nlohmann::json j = {{"library", i.library},   {"version", i.version}, {"core", i.core},
                        {"core_isa", i.core_isa}, {"cpu_isa", i.cpu_isa}, {"cpu", i.cpu_model},
                        {"path", i.path}};
    if (!i.corrected_from.empty()) j["corrected_from"] = i.corrected_from;
    if (!i.warning.empty()) j["warning"] = i.warning;
    return j;
  } catch (const std::exception& x) {
    return {{"error", x.what()}};
  }
}

nlohmann::json kernel_segment(int64_t from_step) {
  nlohmann::json s = {{"from_step", from_step}};
  try {
    const blas::Info& i = blas::info();
    s["blas"] = i.library + (i.version.empty() ? "" : " " + i.version) + " core " +
                (i.core.empty() ? "unknown" : i.core);
    s["library"] = i.library;
    s["core"] = i.core;
    s["core_isa"] = i.core_isa;
  } catch (const std::exception& x) {
    s["blas"] = std::string("unavailable (") + x.what() + ")";
  }
  return s;
}

namespace {
bool openblas(const nlohmann::json& s) {
  const std::string lib = s.value("library", "");
  return lib == "OpenBLAS" || lib == "scipy-openblas";
}
}  // namespace

std::string kernel_change(const nlohmann::json& segments, const nlohmann::json& now) {
  if (!segments.is_array() || segments.empty()) return "";
  const nlohmann::json& last = segments.back();
  const bool same_blas = last.value("blas", "") == now.value("blas", "");
  if (same_blas && last.value("gpu", "") == now.value("gpu", "")) return "";
  auto kernels = [](const nlohmann::json& s) {
    const std::string gpu = s.value("gpu", "");
    return s.value("blas", "?") + (gpu.empty() ? "" : " with " + gpu);
  };
  std::string s = "steps " + std::to_string(last.value("from_step", int64_t{0}) + 1) + ".." +
                  std::to_string(now.value("from_step", int64_t{0})) + " ran on " + kernels(last) +
                  ", this process runs " + kernels(now) +
                  ": the run goes on, but its low-order bits may now differ from an "
                  "uninterrupted run's";
  const std::string core = last.value("core", "");
  if (!same_blas && openblas(last) && last.value("library", "") == now.value("library", "") && !core.empty())
    s += " (OPENBLAS_CORETYPE=" + core + " selects the earlier kernels on a CPU with " +
         last.value("core_isa", "their ISA") + ")";
  return s;
}

namespace {
// "" when every rank's value equals rank 0's, else the sentence's first half: rank 0's value and
// the first rank that differs (with hosts when known), and how many others differ too.
std::string ranks_differ(const char* what, const std::vector<std::string>& values,
                         const std::vector<std::string>& hosts) {
  size_t differ = 0, first = 0;
  for (size_t r = 1; r < values.size(); ++r)
    if (values[r] != values[0] && differ++ == 0) first = r;
  if (differ == 0) return "";
  auto host = [&](size_t r) { return r < hosts.size() ? " on " + hosts[r] : std::string(); };
  std::string s = std::string("the ranks compute on different ") + what + ": rank 0 on " + values[0] +
                  host(0) + ", rank " + std::to_string(first) + " on " + values[first] + host(first);
  if (differ > 1) s += " (and " + std::to_string(differ - 1) + " other rank(s))";
  return s;
}
}  // namespace

std::string rank_kernel_mismatch(const std::vector<std::string>& blas,
                                 const std::vector<std::string>& hosts) {
  std::string s = ranks_differ("BLAS kernels", blas, hosts);
  if (s.empty()) return s;
  return s + "; the job is correct, but its products differ from rank to rank in low-order bits, so it "
             "is not bit-identical to the simulated cluster (give every rank the same OPENBLAS_CORETYPE "
             "where the CPUs allow)";
}

std::string rank_gpu_mismatch(const std::vector<std::string>& gpus) {
  std::string s = ranks_differ("GPUs", gpus, {});
  if (s.empty()) return s;
  return s + "; the job is correct, but cuBLAS picks its algorithms per GPU model and version, so "
             "the ranks' products may differ in low-order bits and the job is not bit-identical to "
             "the simulated cluster nor to a rerun on other nodes (request one GPU model, e.g. "
             "Slurm's --gres=gpu:<type>:1 or --constraint)";
}

}  // namespace sl
