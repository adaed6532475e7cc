// ProfilingDevice must compute exactly what the device it wraps computes (a model trained
// through it for the profile is the same model) and book each call under its category.
#include "tensor/profiling_device.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "tensor/tensor.h"

namespace sl {
namespace {

TEST(ProfilingDevice, ForwardsToTheInnerDeviceAndBooksCallsByCategory) {
  Device& cpu = cpu_device();
  ProfilingDevice prof(cpu);
  const int M = 3, N = 4, K = 5;
  std::vector<float> A(M * K), B(K * N), C1(M * N, 0.0f), C2(M * N, 0.0f);
  for (size_t i = 0; i < A.size(); ++i) A[i] = 0.25f * static_cast<float>(i) - 1.0f;
  for (size_t i = 0; i < B.size(); ++i) B[i] = 0.5f - 0.125f * static_cast<float>(i);
  cpu.gemm(false, false, M, N, K, 1.0f, A.data(), B.data(), 0.0f, C1.data());
  prof.gemm(false, false, M, N, K, 1.0f, A.data(), B.data(), 0.0f, C2.data());
  EXPECT_EQ(C1, C2);
  std::vector<float> s1(M * N), s2(M * N);
  cpu.softmax(M, N, C1.data(), s1.data());
  prof.softmax(M, N, C2.data(), s2.data());
  EXPECT_EQ(s1, s2);
  EXPECT_DOUBLE_EQ(cpu.sum_squares(A.size(), A.data()), prof.sum_squares(A.size(), A.data()));

  const auto& b = prof.buckets();
  EXPECT_EQ(b[ProfilingDevice::kGemm].calls, 1);
  EXPECT_EQ(b[ProfilingDevice::kSoftmaxMask].calls, 1);
  EXPECT_EQ(b[ProfilingDevice::kNorm].calls, 1);
  EXPECT_EQ(b[ProfilingDevice::kAdam].calls, 0);
  EXPECT_DOUBLE_EQ(prof.gemm_flops(), 2.0 * M * N * K);
  prof.reset();
  EXPECT_EQ(prof.buckets()[ProfilingDevice::kGemm].calls, 0);
  EXPECT_EQ(prof.gemm_flops(), 0.0);
}

TEST(ProfilingDevice, TensorsAllocatedThroughItLiveOnIt) {
  ProfilingDevice prof(cpu_device());
  {
    Tensor t = Tensor::zeros(prof, Shape{16});
    EXPECT_EQ(&t.device(), &prof);
    EXPECT_EQ(t.to_host(), std::vector<float>(16, 0.0f));
  }
  EXPECT_GE(prof.buckets()[ProfilingDevice::kMemory].calls, 1);
}

// A device that says it is CUDA and whose synchronize fails, as a CUDA device does once a
// kernel faulted (the error is sticky): under --profile every call synchronises.
class FaultedAsyncDevice : public ProfilingDevice {
 public:
  FaultedAsyncDevice() : ProfilingDevice(cpu_device()) {}
  bool is_cuda() const override { return true; }
  void synchronize() override { throw std::runtime_error("sticky fault of an earlier kernel"); }
};

TEST(ProfilingDevice, AFailingSynchronizeReachesTheCallerInsteadOfTerminating) {
  FaultedAsyncDevice faulted;
  ProfilingDevice prof(static_cast<Device&>(faulted));
  std::vector<float> y(8);
  // Booked from a destructor, this exception would call std::terminate (the test would abort).
  EXPECT_THROW(prof.fill(y.size(), 1.0f, y.data()), std::runtime_error);
  EXPECT_EQ(1.0f, y[7]);  // the kernel itself ran
  EXPECT_EQ(0, prof.buckets()[ProfilingDevice::kElementwise].calls);
}

TEST(ProfilingDevice, AnExceptionOfTheCallItselfIsPassedOnUnbooked) {
  FaultedAsyncDevice faulted;
  ProfilingDevice prof(static_cast<Device&>(faulted));
  int not_allocated_here = 0;
  // release() of a foreign pointer throws logic_error; the synchronize that would follow (and
  // throw too) must not run during the unwinding.
  EXPECT_THROW(prof.release(&not_allocated_here), std::logic_error);
  EXPECT_EQ(0, prof.buckets()[ProfilingDevice::kMemory].calls);
}

}  // namespace
}  // namespace sl
