#include "train/kernel_record.h"

#include <gtest/gtest.h>

#include "train/run_totals.h"

namespace sl {
namespace {

nlohmann::json segment(int64_t from, const std::string& lib, const std::string& core,
                       const std::string& isa) {
  return {{"from_step", from}, {"blas", lib + " 0.3.21 core " + core},
          {"library", lib},    {"core", core},
          {"core_isa", isa}};
}

TEST(KernelChange, SameKernelsOrNoHistorySayNothing) {
  const nlohmann::json skx = segment(0, "OpenBLAS", "SkylakeX", "avx512");
  EXPECT_EQ(kernel_change(nlohmann::json::array(), segment(40, "OpenBLAS", "Zen", "avx2")), "");
  EXPECT_EQ(kernel_change(nlohmann::json::array({skx}), segment(40, "OpenBLAS", "SkylakeX", "avx512")), "");
}

TEST(KernelChange, OtherOpenBlasCoreNamesStepsAndTheCoreType) {
  const nlohmann::json history = nlohmann::json::array(
      {segment(0, "OpenBLAS", "Haswell", "avx2"), segment(100, "OpenBLAS", "SkylakeX", "avx512")});
  EXPECT_EQ(kernel_change(history, segment(250, "OpenBLAS", "Cooperlake", "avx512")),
            "steps 101..250 ran on OpenBLAS 0.3.21 core SkylakeX, this process runs OpenBLAS "
            "0.3.21 core Cooperlake: the run goes on, but its low-order bits may now differ from "
            "an uninterrupted run's (OPENBLAS_CORETYPE=SkylakeX selects the earlier kernels on a "
            "CPU with avx512)");
}

TEST(KernelChange, AnotherLibraryGetsNoCoreTypeHint) {
  const std::string s = kernel_change(nlohmann::json::array({segment(0, "OpenBLAS", "Zen", "avx2")}),
                                      segment(7, "BLIS", "zen3", "avx2"));
  EXPECT_NE(s.find("steps 1..7 ran on OpenBLAS 0.3.21 core Zen, this process runs BLIS"), std::string::npos) << s;
  EXPECT_EQ(s.find("OPENBLAS_CORETYPE"), std::string::npos) << s;
}

nlohmann::json on_gpu(nlohmann::json s, const std::string& gpu) {
  s["gpu"] = gpu;
  return s;
}

TEST(KernelChange, AnotherGpuNamesBothWithoutACoreTypeHint) {
  const std::string h100 = "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79 GiB, cuBLAS 12.9.1";
  const std::string h200 = "NVIDIA H200, sm_90, 132 SMs, 139 GiB, cuBLAS 12.9.1";
  const nlohmann::json cpu = segment(0, "OpenBLAS", "SkylakeX", "avx512");
  const nlohmann::json history = nlohmann::json::array({on_gpu(cpu, h100)});
  EXPECT_EQ(kernel_change(history, on_gpu(segment(30, "OpenBLAS", "SkylakeX", "avx512"), h100)), "");
  EXPECT_EQ(kernel_change(history, on_gpu(segment(30, "OpenBLAS", "SkylakeX", "avx512"), h200)),
            "steps 1..30 ran on OpenBLAS 0.3.21 core SkylakeX with " + h100 +
                ", this process runs OpenBLAS 0.3.21 core SkylakeX with " + h200 +
                ": the run goes on, but its low-order bits may now differ from an uninterrupted "
                "run's");
  // A CUDA run resumed on the CPU backend (or the other way round) changes kernels too.
  const std::string to_cpu = kernel_change(history, segment(30, "OpenBLAS", "SkylakeX", "avx512"));
  EXPECT_NE(to_cpu.find("with " + h100 + ", this process runs OpenBLAS 0.3.21 core SkylakeX:"), std::string::npos)
      << to_cpu;
}

TEST(RunTotalsKernels, KeptByTheCheckpointAndEmptyForAnOlderOne) {
  RunTotals t;
  t.step = 12;
  t.kernels.push_back(segment(0, "OpenBLAS", "SkylakeX", "avx512"));
  const nlohmann::json j = t.to_json();
  EXPECT_EQ(RunTotals::from_json(j).kernels, t.kernels);
  nlohmann::json old = j;
  old.erase("kernels");  // a checkpoint written before the record
  EXPECT_TRUE(RunTotals::from_json(old).kernels.empty());
}

}  // namespace
}  // namespace sl

namespace sl {
namespace {

TEST(RankKernelMismatch, SilentWhenAllAgree) {
  EXPECT_EQ(rank_kernel_mismatch({"OpenBLAS 0.3.21 core SkylakeX", "OpenBLAS 0.3.21 core SkylakeX"},
                                 {"a", "b"}),
            "");
  EXPECT_EQ(rank_kernel_mismatch({"OpenBLAS 0.3.21 core Zen"}, {"a"}), "");
}

TEST(RankKernelMismatch, NamesRankZeroAndTheFirstThatDiffers) {
  EXPECT_EQ(rank_kernel_mismatch({"OpenBLAS 0.3.21 core SkylakeX", "OpenBLAS 0.3.21 core SkylakeX",
                                  "OpenBLAS 0.3.21 core Zen", "OpenBLAS 0.3.21 core Haswell"},
                                 {"n1", "n1", "n2", "n3"}),
            "the ranks compute on different BLAS kernels: rank 0 on OpenBLAS 0.3.21 core SkylakeX on "
            "n1, rank 2 on OpenBLAS 0.3.21 core Zen on n2 (and 1 other rank(s)); the job is "
            "correct, but its products differ from rank to rank in low-order bits, so it is not "
            "bit-identical to the simulated cluster (give every rank the same OPENBLAS_CORETYPE "
            "where the CPUs allow)");
}

TEST(RankGpuMismatch, SilentWhenAllAgreeAndNamesTheFirstThatDiffers) {
  const std::string h100 = "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79 GiB, cuBLAS 13.0.0";
  EXPECT_EQ(rank_gpu_mismatch({h100, h100, h100}), "");
  EXPECT_EQ(rank_gpu_mismatch({h100}), "");
  const std::string a100 = "NVIDIA A100-SXM4-80GB, sm_80, 108 SMs, 79 GiB, cuBLAS 13.0.0";
  EXPECT_EQ(rank_gpu_mismatch({h100, h100 + ", TF32", a100}),
            "the ranks compute on different GPUs: rank 0 on " + h100 + ", rank 1 on " + h100 +
                ", TF32 (and 1 other rank(s)); the job is correct, but cuBLAS picks its algorithms "
                "per GPU model and version, so the ranks' products may differ in low-order bits and "
                "the job is not bit-identical to the simulated cluster nor to a rerun on other nodes "
                "(request one GPU model, e.g. Slurm's --gres=gpu:<type>:1 or --constraint)");
}

}  // namespace
}  // namespace sl
