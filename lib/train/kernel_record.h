#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sl {

// Which kernels computed a run's products. Results are bit-identical across machines only
// with the same BLAS library, version and kernels ("core"): another CPU model can make
// OpenBLAS choose other kernels (a Zen 4 EPYC picks Cooperlake where a Xeon picks SkylakeX),
// and a run resumed there goes on correctly but its low-order bits leave those of an
// uninterrupted run. So each checkpoint carries the segments so far (run.json "kernels"),
// a resume onto other kernels says so, and summary.json lists which steps ran on what.

// summary.json "blas": library, version, core, ISAs, CPU, file.
nlohmann::json blas_record();

// One segment, from step `from_step` (0-based count of steps done when it began):
// {"from_step", "blas": "OpenBLAS 0.3.21 core SkylakeX", "library", "core", "core_isa"}.
// A CUDA run's trainer adds "gpu" (CudaDevice::kernels(): GPU, SM count, cuBLAS version).
nlohmann::json kernel_segment(int64_t from_step);

// "" when `now` runs the kernels of the last segment of `segments` (or there is none): the
// same "blas" and the same "gpu" (absent = a CPU run); otherwise one sentence for the warning,
// with the OPENBLAS_CORETYPE that restores the earlier kernels when the BLAS changed and both
// are OpenBLAS.
std::string kernel_change(const nlohmann::json& segments, const nlohmann::json& now);

// An MPI job's ranks on hosts with different CPUs may each pick other kernels: the job is
// correct, but its products differ from rank to rank in low-order bits and it no longer equals
// the simulated cluster bit for bit. Given each rank's kernel_segment()["blas"] and host:
// "" when all agree, else one sentence naming rank 0's kernels and the first rank that differs.
std::string rank_kernel_mismatch(const std::vector<std::string>& blas,
                                 const std::vector<std::string>& hosts);

// The same for a CUDA job's GPUs, given each rank's CudaDevice::kernels() (GPU model, SMs,
// memory, cuBLAS version, TF32): nodes of a cluster partition may hold different GPU models.
std::string rank_gpu_mismatch(const std::vector<std::string>& gpus);

}  // namespace sl
