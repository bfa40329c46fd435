// SPDX-License-Identifier: Apache-2.0
//! @file
//! Whether a CUDA device can be used, and why not. Any error from the runtime at this point (no driver, a
//! driver older than the runtime, no device) means "no device": GPU tests skip, never pass.
//! Also the device-side bfloat16 rounding, so tests can hold core/dtype.hpp to the hardware's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scancheck::cuda {

struct DeviceStatus {
  int count = 0;       //!< usable devices
  std::string name;    //!< the current device's name when count > 0
  std::string reason;  //!< why count == 0
};

//! The first call adopts a CTest resource group's GPU (CTEST_RESOURCE_GROUP_0_GPUS) as the only visible one.
DeviceStatus device_status();

//! __float2bfloat16_rn on the device, element by element. Throws std::runtime_error on a CUDA error.
std::vector<std::uint16_t> bf16_bits_on_device(const std::vector<float>& values);

}  // namespace scancheck::cuda
