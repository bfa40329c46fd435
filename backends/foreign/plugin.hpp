// SPDX-License-Identifier: Apache-2.0
//! @file
//! A loaded C ABI plugin (include/scancheck/plugin.h; foreign-backends.md, "C ABI plugins"): its library,
//! its provider table checked and read as a worker's hello answer, and one backend run on a case. Both
//! ways of using a plugin share this class: the plugin host (plugin_host.hpp), a worker process that
//! isolates the plugin, and the in-process mode (`--plugin-in-process`, load_plugins_in_process), which
//! registers the backends directly: faster, no isolation.
//!
//! A run stages the case in the backend's memory (host buffers aligned to 256 bytes, or device memory and
//! a stream), its outputs poisoned and fenced by guard regions (backends/output_guard.hpp), calls the
//! plugin, then checks what the built-in executors check: the inputs unchanged, every output element
//! written, no guard overwritten.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.hpp"
#include "backends/foreign/worker_protocol.hpp"

struct scancheck_provider;

namespace scancheck::foreign {

//! A run the plugin's backend failed with the process intact: a nonzero return and its message, a
//! written input, an unwritten output, a device backend in a build without CUDA, staging out of memory.
struct PluginRunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

//! A CUDA error after a device backend's run (an illegal address, a launch failure): the process's CUDA
//! context may be lost. The plugin host exits on it, so the row is a fault and a fresh host takes over.
struct PluginDeviceFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Plugin {
 public:
  //! Loads `path` (dlopen RTLD_NOW | RTLD_LOCAL), calls its entry point and checks its table. Throws
  //! InputError "plugin PATH: ..." naming the problem: a library that cannot be loaded, no entry point, an
  //! ABI version this scancheck does not know, a malformed table (the field and why).
  explicit Plugin(std::string path);
  //! Leaves the library loaded: its CUDA state and static destructors may run at exit only.
  ~Plugin() = default;
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  const std::string& path() const { return path_; }
  //! The table as a worker's hello answer, backends in table order.
  const HelloAnswer& hello() const { return hello_; }
  //! The same as the one JSON line the plugin host answers hello with.
  const std::string& hello_line() const { return hello_line_; }
  //! The backend whose "variant@dtype" token is `token`, as an index into hello().backends.
  std::optional<std::size_t> find(std::string_view token) const;

  //! Runs backend `index` on `c` (validated and inside its constraints; run_backend sees to that) and
  //! returns the outputs of its declared passes. Calls are serialized. Throws PluginRunError,
  //! PluginDeviceFault.
  Outputs run(std::size_t index, const Case& c);

 private:
  std::string path_;
  const scancheck_provider* table_ = nullptr;
  HelloAnswer hello_;
  std::string hello_line_;
  std::mutex mutex_;
};

//! Loads every plugin into this process and registers its backends in `registry` (the plugins live until
//! the process exits). Throws InputError for one that cannot be loaded, and for a provider name another
//! loaded provider has.
void load_plugins_in_process(const std::vector<std::string>& paths, BackendRegistry& registry);

}  // namespace scancheck::foreign
