// SPDX-License-Identifier: Apache-2.0
#include "backends/foreign/plugin.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/foreign/plugin_device.hpp"
#include "backends/foreign/shell_words.hpp"
#include "backends/output_guard.hpp"
#include "core/error.hpp"
#include "scancheck/plugin.h"

namespace scancheck::foreign {
namespace {

using nlohmann::json;

// The header's enumerations are core's, value for value, so a table's fields convert by a cast.
static_assert(SCANCHECK_SCAN == static_cast<int>(Architecture::scan) &&
              SCANCHECK_COMPLEX_SCAN == static_cast<int>(Architecture::complex_scan) &&
              SCANCHECK_RGLRU == static_cast<int>(Architecture::rglru) &&
              SCANCHECK_COMPLEX_RGLRU == static_cast<int>(Architecture::complex_rglru) &&
              all_architectures.size() == 4);
static_assert(SCANCHECK_FLOAT32 == static_cast<int>(DType::float32) &&
              SCANCHECK_BFLOAT16 == static_cast<int>(DType::bfloat16));
static_assert(SCANCHECK_SQRT_GRADIENT_BOUNDED == static_cast<int>(SqrtGradient::bounded) &&
              SCANCHECK_SQRT_GRADIENT_EXACT == static_cast<int>(SqrtGradient::exact));

constexpr std::size_t error_buffer_bytes = 1024;
constexpr std::size_t alignment = 256;  // DLPack's promise for DLTensor::data

[[noreturn]] void bad_plugin(const std::string& path, const std::string& what) {
  throw InputError(fmt::format("plugin {}: {}", path, what));
}

// ---- the table, read as a hello answer ----

json constraints_json(const scancheck_constraints& k, const std::string& at, const std::string& path) {
  json j = json::object();
  // A limit of 0 is "none" (a zeroed struct accepts every case); width_multiple 1 is "any W" too.
  const auto limit = [&](const char* key, std::int64_t value, std::int64_t no_limit_up_to) {
    if (value < 0) bad_plugin(path, fmt::format("{}.constraints.{} is {}; 0 means no limit", at, key, value));
    if (value > no_limit_up_to) j[key] = value;
  };
  limit("width_multiple", k.width_multiple, 1);
  limit("max_width", k.max_width, 0);
  limit("max_length", k.max_length, 0);
  limit("max_batch", k.max_batch, 0);
  if (k.head_count > 0) {
    if (!k.heads) bad_plugin(path, fmt::format("{}.constraints.heads is NULL with head_count {}", at, k.head_count));
    j["heads"] = std::vector<std::int64_t>(k.heads, k.heads + k.head_count);
  }
  if (k.sqrt_gradients != 0) {
    if (k.sqrt_gradients & ~(SCANCHECK_SQRT_GRADIENTS_BOUNDED | SCANCHECK_SQRT_GRADIENTS_EXACT))
      bad_plugin(path, fmt::format("{}.constraints.sqrt_gradients has unknown bits ({:#x})", at, k.sqrt_gradients));
    json names = json::array();
    if (k.sqrt_gradients & SCANCHECK_SQRT_GRADIENTS_BOUNDED) names.push_back("bounded");
    if (k.sqrt_gradients & SCANCHECK_SQRT_GRADIENTS_EXACT) names.push_back("exact");
    j["sqrt_gradient"] = names;
  }
  if (k.no_h0) j["h0"] = false;
  if (k.no_dh_last) j["dh_last"] = false;
  if (k.no_resets) j["resets"] = false;
  return j;
}

json backend_json(const scancheck_backend& b, const std::string& at, const std::string& path) {
  if (!b.variant) bad_plugin(path, at + ".variant is NULL");
  if (b.architecture < 0 || b.architecture >= static_cast<std::int32_t>(all_architectures.size()))
    bad_plugin(path, fmt::format("{}.architecture is {}, not one of SCANCHECK_SCAN ... SCANCHECK_COMPLEX_RGLRU", at,
                                 b.architecture));
  if (b.io_dtype != SCANCHECK_FLOAT32 && b.io_dtype != SCANCHECK_BFLOAT16)
    bad_plugin(path, fmt::format("{}.io_dtype is {}, not SCANCHECK_FLOAT32 or SCANCHECK_BFLOAT16", at, b.io_dtype));
  if (b.device_type != kDLCPU && b.device_type != kDLCUDA)
    bad_plugin(path, fmt::format("{}.device_type is {}, not kDLCPU ({}) or kDLCUDA ({})", at, b.device_type,
                                 static_cast<int>(kDLCPU), static_cast<int>(kDLCUDA)));
  if (!b.run) bad_plugin(path, at + ".run is NULL");
  json j{{"variant", b.variant},
         {"architecture", to_string(static_cast<Architecture>(b.architecture))},
         {"io_dtype", to_string(static_cast<DType>(b.io_dtype))}};
  if (b.passes == SCANCHECK_PASS_FORWARD) j["passes"] = {"forward"};
  else if (b.passes != 0 && b.passes != (SCANCHECK_PASS_FORWARD | SCANCHECK_PASS_BACKWARD))
    bad_plugin(path, fmt::format("{}.passes is {:#x}, not SCANCHECK_PASS_FORWARD, SCANCHECK_PASS_FORWARD | "
                                 "SCANCHECK_PASS_BACKWARD or 0 (both)",
                                 at, b.passes));
  if (b.nondeterministic) j["deterministic"] = false;
  const json constraints = constraints_json(b.constraints, at, path);
  if (!constraints.empty()) j["constraints"] = constraints;
  return j;
}

//! The hello answer's line for `table`, after the checks JSON cannot express (pointers, enumerations).
std::string hello_line_of(const scancheck_provider& table, const std::string& path) {
  if (!table.name) bad_plugin(path, "its table's name is NULL");
  if (table.backend_count == 0) bad_plugin(path, "its table declares no backend (backend_count is 0)");
  if (!table.backends)
    bad_plugin(path, fmt::format("its table's backends is NULL with backend_count {}", table.backend_count));
  json backends = json::array();
  for (std::size_t i = 0; i < table.backend_count; ++i)
    backends.push_back(backend_json(table.backends[i], fmt::format("backends[{}]", i), path));
  try {
    return json{{"protocol", protocol_version}, {"provider", table.name}, {"backends", backends}}.dump();
  } catch (const json::exception&) {
    bad_plugin(path, "a name in its table is not UTF-8 text");
  }
}

// ---- staging a run ----

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

//! One tensor of a run: its image in host memory (and in device memory for a device backend). An
//! output's image is poisoned and has a guard region on each side (backends/output_guard.hpp); an
//! input's is a copy of the case's tensor, checked against it after the run.
struct Staged {
  std::string name;
  Dims dims;
  DLDataType dtype{};
  std::int64_t elements = 0;
  std::size_t bytes = 0;   // of the tensor itself
  std::size_t offset = 0;  // bytes before it in its image (an output's front guard)
  std::size_t image_bytes = 0;
  std::unique_ptr<std::byte, FreeDeleter> host;
  std::unique_ptr<plugin_device::Memory> device;
  const void* original = nullptr;  // an input's data in the case

  void* data() const {
    return static_cast<std::byte*>(device ? device->get() : static_cast<void*>(host.get())) + offset;
  }
  const std::byte* host_tensor() const { return host.get() + offset; }
};

std::unique_ptr<std::byte, FreeDeleter> host_image(std::size_t bytes) {
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded);
  if (!p) throw PluginRunError(fmt::format("out of host memory staging {} bytes", bytes));
  return std::unique_ptr<std::byte, FreeDeleter>(static_cast<std::byte*>(p));
}

Staged stage_input(const std::string& name, const Dims& dims, const void* values, DLDataType dtype, bool device) {
  Staged s;
  s.name = name;
  s.dims = dims;
  s.dtype = dtype;
  s.elements = element_count(dims);
  s.bytes = s.image_bytes = static_cast<std::size_t>(s.elements) * (dtype.bits / 8);
  s.original = values;
  s.host = host_image(s.image_bytes);
  std::memcpy(s.host.get(), values, s.bytes);
  if (device) {
    s.device = std::make_unique<plugin_device::Memory>(s.image_bytes);
    plugin_device::copy_to_device(s.device->get(), s.host.get(), s.bytes);
  }
  return s;
}

Staged stage_output(const std::string& name, const Dims& dims, bool device) {
  Staged s;
  s.name = name;
  s.dims = dims;
  s.dtype = DLDataType{kDLFloat, 32, 1};
  s.elements = element_count(dims);
  s.bytes = static_cast<std::size_t>(s.elements) * sizeof(float);
  s.offset = backends::guard_elements * sizeof(float);
  static_assert(backends::guard_elements * sizeof(float) % alignment == 0, "the front guard keeps the alignment");
  const std::vector<float> image = backends::poisoned_image<float>(s.elements);
  s.image_bytes = image.size() * sizeof(float);
  s.host = host_image(s.image_bytes);
  std::memcpy(s.host.get(), image.data(), s.image_bytes);
  if (device) {
    s.device = std::make_unique<plugin_device::Memory>(s.image_bytes);
    plugin_device::copy_to_device(s.device->get(), s.host.get(), s.image_bytes);
  }
  return s;
}

scancheck_tensor view_of(const Staged& s, DLDevice where) {
  DLTensor t{};
  t.data = s.data();
  t.device = where;
  t.ndim = static_cast<int>(s.dims.size());
  t.dtype = s.dtype;
  t.shape = const_cast<std::int64_t*>(s.dims.data());  // DLTensor's field is not const; plugins only read it
  t.strides = nullptr;
  t.byte_offset = 0;
  return scancheck_tensor{s.name.c_str(), t};
}

//! The first line of a plugin's message, at most the buffer's length.
std::string first_line(const std::vector<char>& buffer) {
  const char* text = buffer.data();
  const std::size_t n = strnlen(text, buffer.size());
  std::string line(text, n);
  line = line.substr(0, line.find_first_of("\r\n"));
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

}  // namespace

Plugin::Plugin(std::string path) : path_(std::move(path)) {
  // A name without a slash would be searched like a system library; a plugin is a file.
  const std::string file = path_.find('/') == std::string::npos ? "./" + path_ : path_;
  void* library = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) bad_plugin(path_, fmt::format("cannot be loaded: {}", ::dlerror()));
  ::dlerror();
  void* entry = ::dlsym(library, SCANCHECK_PLUGIN_ENTRY);
  if (!entry)
    bad_plugin(path_, fmt::format("has no entry point '{}' (include/scancheck/plugin.h: export it with "
                                  "SCANCHECK_PLUGIN_EXPORT)",
                                  SCANCHECK_PLUGIN_ENTRY));
  table_ = reinterpret_cast<scancheck_plugin_fn>(entry)();
  if (!table_) bad_plugin(path_, fmt::format("its entry point '{}' returned NULL", SCANCHECK_PLUGIN_ENTRY));
  if (table_->abi_version != SCANCHECK_PLUGIN_ABI_VERSION)
    bad_plugin(path_, fmt::format("its table has ABI version {}, which this scancheck does not know (it knows "
                                  "version {})",
                                  table_->abi_version, SCANCHECK_PLUGIN_ABI_VERSION));
  hello_line_ = hello_line_of(*table_, path_);
  hello_ = parse_hello_answer(hello_line_, fmt::format("plugin {}", path_));
}

std::optional<std::size_t> Plugin::find(std::string_view token) const {
  for (std::size_t i = 0; i < hello_.backends.size(); ++i)
    if (hello_.backends[i].token() == token) return i;
  return std::nullopt;
}

Outputs Plugin::run(std::size_t index, const Case& c) {
  const std::lock_guard lock(mutex_);
  const scancheck_backend& backend = table_->backends[index];
  const DeclaredBackend& declared = hello_.backends[index];
  const bool device = backend.device_type == kDLCUDA;
  if (device && !plugin_device::available()) throw PluginRunError("this scancheck has no CUDA executor");
  const DLDevice where{device ? kDLCUDA : kDLCPU, device ? plugin_device::current_device() : 0};

  std::vector<Staged> inputs, outputs;
  for (const TensorSpec& spec : tensor_layout(c)) {
    if (spec.role == TensorRole::output) {
      if (std::find(declared.passes.begin(), declared.passes.end(), spec.direction) != declared.passes.end())
        outputs.push_back(stage_output(spec.name, spec.dims, device));
    } else if (spec.integer) {
      inputs.push_back(
          stage_input(spec.name, c.segment_pos.dims(), c.segment_pos.data(), DLDataType{kDLInt, 32, 1}, device));
    } else if (c.has(spec.name)) {
      inputs.push_back(
          stage_input(spec.name, c.at(spec.name).dims(), c.at(spec.name).data(), DLDataType{kDLFloat, 32, 1}, device));
    }
  }
  std::vector<scancheck_tensor> input_views, output_views;
  for (const Staged& s : inputs) input_views.push_back(view_of(s, where));
  for (const Staged& s : outputs) output_views.push_back(view_of(s, where));
  scancheck_case run_case{};
  run_case.architecture = static_cast<std::int32_t>(c.architecture);
  run_case.io_dtype = static_cast<std::int32_t>(c.io_dtype);
  run_case.sqrt_gradient = static_cast<std::int32_t>(c.sqrt_gradient);
  run_case.has_h0 = c.has("h0");
  run_case.has_dh_last = c.has("dh_last");
  run_case.batch = c.shape.batch;
  run_case.length = c.shape.length;
  run_case.width = c.shape.width;
  run_case.heads = c.shape.heads;
  run_case.inputs = input_views.data();
  run_case.input_count = input_views.size();
  run_case.outputs = output_views.data();
  run_case.output_count = output_views.size();

  std::vector<char> error(error_buffer_bytes, '\0');
  std::unique_ptr<plugin_device::Stream> stream;
  if (device) stream = std::make_unique<plugin_device::Stream>();
  const int status = backend.run(&backend, &run_case, stream ? stream->get() : nullptr, error.data(), error.size());
  if (device) {
    try {
      stream->synchronize();
      for (Staged& s : outputs) plugin_device::copy_to_host(s.host.get(), s.device->get(), s.image_bytes);
      for (Staged& s : inputs) plugin_device::copy_to_host(s.host.get(), s.device->get(), s.bytes);
    } catch (const std::exception& e) {
      throw PluginDeviceFault(e.what());
    }
  }
  if (status != 0) {
    const std::string message = first_line(error);
    throw PluginRunError(message.empty() ? fmt::format("the plugin's run returned {} without a message", status)
                                         : message);
  }
  for (const Staged& s : inputs)
    if (std::memcmp(s.host_tensor(), s.original, s.bytes) != 0)
      throw PluginRunError(fmt::format("input {}: the backend wrote into it (inputs are read-only)", s.name));
  Outputs out;
  for (const Staged& s : outputs) {
    Tensor<float> t(s.dims);
    try {
      backends::unpack_image(reinterpret_cast<const float*>(s.host.get()), s.elements, t.data(), s.name);
    } catch (const std::runtime_error& e) {
      throw PluginRunError(e.what());
    }
    out.emplace(s.name, std::move(t));
  }
  return out;
}

void load_plugins_in_process(const std::vector<std::string>& paths, BackendRegistry& registry) {
  static std::vector<std::unique_ptr<Plugin>> plugins;  // for the process's life: the registry points at them
  for (const std::string& path : paths) {
    auto plugin = std::make_unique<Plugin>(path);
    const std::string& provider = plugin->hello().provider;
    const std::string loaded_by = "--plugin-in-process " + quoted_word(path);
    require_new_provider(registry, provider, loaded_by);
    for (std::size_t i = 0; i < plugin->hello().backends.size(); ++i) {
      const DeclaredBackend& declared = plugin->hello().backends[i];
      BackendInfo b = declared.info(provider, loaded_by);
      const std::string name = to_string(BackendName{provider, b.architecture, b.variant, b.io_dtype});
      b.run = [p = plugin.get(), i, name](const Case& c, Executor) {
        try {
          return p->run(i, c);
        } catch (const PluginDeviceFault& e) {
          throw BackendError(fmt::format("backend {} (in process) on {}: CUDA error after its run, the process's "
                                         "CUDA context may be lost: {}",
                                         name, to_string(c.shape), e.what()),
                             RunFailure::fault);
        }
      };
      registry.add(std::move(b));
    }
    plugins.push_back(std::move(plugin));
  }
}

}  // namespace scancheck::foreign
