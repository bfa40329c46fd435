// SPDX-License-Identifier: Apache-2.0
#include "reports/sha256.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <openssl/evp.h>

namespace scancheck::reports {

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL)");
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace scancheck::reports
