// SPDX-License-Identifier: Apache-2.0
//! @file
//! The CUDA runtime calls a device plugin's run needs (include/scancheck/plugin.h, kDLCUDA backends):
//! device memory, copies, a stream. In a build without CUDA (SCANCHECK_HAVE_CUDA off) `available()` is
//! false and everything else throws. Every failure is a std::runtime_error naming the call and the
//! runtime's message; the caller decides whether it is the run's error or a lost CUDA context.
#pragma once

#include <cstddef>

namespace scancheck::foreign::plugin_device {

//! Whether this build has the CUDA executor (it says nothing about a device being present).
bool available();

//! The current CUDA device's ordinal, for DLTensor::device.device_id.
int current_device();

//! `bytes` of device memory (cudaMalloc: 256-byte aligned), freed with the object.
class Memory {
 public:
  explicit Memory(std::size_t bytes);
  ~Memory();
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

void copy_to_device(void* device, const void* host, std::size_t bytes);
void copy_to_host(void* host, const void* device, std::size_t bytes);

//! A non-blocking stream for one run, destroyed with the object.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  void* get() const { return stream_; }  //!< the cudaStream_t
  //! Waits for the stream, then asks the runtime for any pending error (a kernel's illegal access).
  void synchronize();

 private:
  void* stream_ = nullptr;
};

}  // namespace scancheck::foreign::plugin_device
