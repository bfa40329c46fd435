// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cublas_library.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include "backends/cuda/cuda_error.hpp"

namespace scancheck::backends {
namespace {

//! The soname of the cuBLAS this was compiled against, from the loader's path, then from the toolkit's
//! library directory found at configure time.
void* open_cublas() {
  const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  for (const std::string& name : {soname, std::string(SCANCHECK_CUBLAS_DIR) + "/" + soname})
    if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  const char* why = dlerror();
  throw CudaError("cannot load " + soname + (why ? std::string(": ") + why : std::string()));
}

template <class Fn>
Fn symbol(void* handle, const char* name) {
  void* p = dlsym(handle, name);
  if (!p) throw CudaError(std::string("cuBLAS has no symbol ") + name);
  return reinterpret_cast<Fn>(p);
}

CublasLibrary load() {
  void* h = open_cublas();  // kept open for the life of the process
  return {symbol<decltype(CublasLibrary::create)>(h, "cublasCreate_v2"),
          symbol<decltype(CublasLibrary::destroy)>(h, "cublasDestroy_v2"),
          symbol<decltype(CublasLibrary::set_math_mode)>(h, "cublasSetMathMode"),
          symbol<decltype(CublasLibrary::sgemm_strided_batched)>(h, "cublasSgemmStridedBatched"),
          symbol<decltype(CublasLibrary::status_string)>(h, "cublasGetStatusString")};
}

}  // namespace

const CublasLibrary& cublas_library() {
  static const CublasLibrary library = load();
  return library;
}

}  // namespace scancheck::backends
