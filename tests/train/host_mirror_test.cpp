// HostMirror: no copy on the CPU; on a GPU a host copy only once something pulls (issue 32:
// with the device-resident exchange nothing does, and four idle copies of P floats are ~1 GB
// per rank at paper size).
#include "train/host_mirror.h"

#include <gtest/gtest.h>

#include "tensor/profiling_device.h"

namespace sl {
namespace {

// Host memory behind a device that reports itself as CUDA: HostMirror's GPU path, testable
// without a GPU.
class CudaLikeDevice : public ProfilingDevice {
 public:
  CudaLikeDevice() : ProfilingDevice(cpu_device()) {}
  bool is_cuda() const override { return true; }
};

TEST(HostMirror, OnTheCpuItIsTheBufferItself) {
  Tensor t = Tensor::zeros(cpu_device(), Shape{1000});
  HostMirror m(t);
  EXPECT_EQ(t.f32(), m.pull());
  EXPECT_EQ(0u, m.host_bytes());
}

TEST(HostMirror, OnAGpuTheHostCopyExistsOnlyAfterThePull) {
  CudaLikeDevice dev;
  Tensor t = Tensor::from_host(dev, Shape{1000}, std::vector<float>(1000, 2.0f));
  HostMirror m(t);
  EXPECT_EQ(0u, m.host_bytes());  // constructed, never pulled: no host memory
  float* h = m.pull();
  EXPECT_NE(t.f32(), h);
  EXPECT_EQ(1000 * sizeof(float), m.host_bytes());
  EXPECT_EQ(2.0f, h[999]);
  h[999] = 5.0f;
  m.push();
  EXPECT_EQ(5.0f, t.to_host()[999]);
}

}  // namespace
}  // namespace sl
