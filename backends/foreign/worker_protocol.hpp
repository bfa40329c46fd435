// SPDX-License-Identifier: Apache-2.0
//! @file
//! The messages of the worker protocol (foreign-backends.md, "Worker protocol"; its version is
//! protocol_version below), one JSON object per line: what scancheck sends (hello, run, bye) and the strict
//! reading of what a worker answers. A hello answer that breaks the protocol is bad input (the worker cannot
//! be used at all); a run answer that breaks it is a ProtocolError (the run's verdict is `fault`).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.hpp"

namespace scancheck::foreign {

inline constexpr int protocol_version = 1;

//! One backend as a worker declares it in its hello answer.
struct DeclaredBackend {
  std::string variant;
  Architecture architecture = Architecture::scan;
  DType io_dtype = DType::float32;
  std::vector<Direction> passes{Direction::forward, Direction::backward};
  bool deterministic = true;
  std::vector<std::string> omits;  //!< gradients it does not compute (optional "omits", protocol 1)
  BackendConstraints constraints;

  std::string token() const;  //!< "variant@dtype": how run requests name it
  //! Its registry record (without a run callable) under `provider`, loaded by the options `loaded_by`.
  BackendInfo info(const std::string& provider, const std::string& loaded_by) const;
};

//! Throws InputError when another loaded worker or plugin already declared `provider`.
void require_new_provider(const BackendRegistry& registry, const std::string& provider, const std::string& loaded_by);

struct HelloAnswer {
  std::string provider;
  std::vector<DeclaredBackend> backends;
  std::string runtime;           //!< optional "runtime": what the kernels run on; empty when not said
  BackendProvenance provenance;  //!< optional "provenance": package, version, commit
};

struct RunAnswer {
  std::int64_t id = 0;
  bool ok = false;
  std::string error;                              //!< ok: false
  std::optional<double> forward_ms, backward_ms;  //!< the worker's own device times, when it measured them
};

//! A run answer that is not this protocol's (not JSON, another id, missing fields).
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string hello_request();
std::string run_request(std::int64_t id, const std::string& backend, const std::filesystem::path& case_dir,
                        const std::filesystem::path& out);
std::string bye_request();

//! Throws InputError naming `source` (the worker) and the field: not JSON, another protocol version, a
//! provider name outside [a-z0-9_-]+, unknown architectures or dtypes, duplicate backends, a "runtime" that
//! is no string, a "provenance" that is no object of strings or has fields other than package, version, commit.
HelloAnswer parse_hello_answer(std::string_view line, const std::string& source);
//! Throws ProtocolError saying what is wrong.
RunAnswer parse_run_answer(std::string_view line, std::int64_t expected_id);

}  // namespace scancheck::foreign
