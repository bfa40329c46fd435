// SPDX-License-Identifier: Apache-2.0
//! @file
//! Content identity, the one hash of reports/: SHA-256 from OpenSSL's libcrypto, written as `sha256sum`
//! prints it. A joined speed profile is named by it in the report (profile.hpp), and a report in the history
//! by the one of its report.json text (history.hpp).
#pragma once

#include <string>
#include <string_view>

namespace scancheck::reports {

//! The SHA-256 of `bytes`: 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace scancheck::reports
