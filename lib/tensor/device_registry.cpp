#include "tensor/device_registry.h"

#include "common/input_error.h"

#ifdef SL_HAVE_CUDA
#include "tensor/cuda/cuda_device.h"
#endif

namespace sl {

bool cuda_available(std::string* reason) {
#ifdef SL_HAVE_CUDA
  return cuda_device_or_null(reason) != nullptr;
#else
  if (reason) *reason = "this build has no CUDA backend (nvcc was not found at configure time)";
  return false;
#endif
}

Device& device_by_name(const std::string& name, const std::string& where) {
  if (name == "cpu") return cpu_device();
  if (name == "cuda") {
    std::string why;
#ifdef SL_HAVE_CUDA
    if (Device* d = cuda_device_or_null(&why)) return *d;
#else
    cuda_available(&why);
#endif
    throw InputError(where, "device \"cuda\" is not usable: " + why);
  }
  throw InputError(where, "expected device \"cpu\" or \"cuda\", got \"" + name + "\"");
}

}  // namespace sl
