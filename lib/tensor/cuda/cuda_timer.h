#pragma once
// CUDA events around a span of device work on the legacy default stream (the one every
// kernel of the backend uses): the GPU's own time for the span, not the host's. Host code;
// no CUDA headers.
namespace sl {

class CudaEventTimer {
 public:
  CudaEventTimer();  // throws std::runtime_error when the events cannot be created
  ~CudaEventTimer();
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;
  void start();
  void stop();
  // Seconds between start() and stop(); waits for the stop event.
  double seconds();

 private:
  void* start_ = nullptr;
  void* stop_ = nullptr;
};

}  // namespace sl
