// SPDX-License-Identifier: Apache-2.0
//! @file
//! The one error type for bad input (malformed files, impossible shapes, unknown names). The CLI turns it
//! into a single line on stderr and exit code 2; anything else escaping is a bug in scancheck.
#pragma once

#include <stdexcept>
#include <string>

namespace scancheck {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace scancheck
