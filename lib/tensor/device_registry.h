#pragma once
#include <string>

#include "tensor/device.h"

namespace sl {

// "cpu" or "cuda". Throws InputError(where, ...) when the name is unknown, when the CUDA
// backend was not built, or when no GPU is present.
Device& device_by_name(const std::string& name, const std::string& where = "device");

// True when the CUDA backend was compiled in and a GPU is usable; `reason` says why not.
bool cuda_available(std::string* reason = nullptr);

}  // namespace sl
