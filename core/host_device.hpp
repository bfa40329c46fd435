// SPDX-License-Identifier: Apache-2.0
//! @file
//! SC_HD marks a function for both the host and, under nvcc, the device: how one formula or one kernel
//! body serves the CPU and the GPU. C++17.
#pragma once

#if defined(__CUDACC__)
#define SC_HD __host__ __device__ __forceinline__
#else
#define SC_HD inline
#endif
