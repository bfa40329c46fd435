// SPDX-License-Identifier: Apache-2.0
//! @file
//! The one error type for bad input (malformed files, impossible shapes, unknown names). The CLI turns it
//! into a single line on stderr and exit code 2; anything else escaping is a bug in scancheck. And the one
//! for a stop the user asked for.
#pragma once

#include <stdexcept>
#include <string>

namespace scancheck {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

//! Work abandoned because the user asked the run to stop (SIGINT, SIGTERM; cli/interrupt.hpp): the
//! caller drops what was half done and keeps what finished.
struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

}  // namespace scancheck
