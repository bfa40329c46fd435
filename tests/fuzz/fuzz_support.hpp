// SPDX-License-Identifier: Apache-2.0
//! @file
//! What every libFuzzer target of a parser shares. The contract under test is the CLI's: bad input is an
//! InputError (one line, exit 2); any other exception, a crash, a sanitizer report, a leak or an
//! allocation beyond -malloc_limit_mb is a bug. Parsers of files are fuzzed through the file system, as
//! users reach them, in a scratch directory on tmpfs (/dev/shm) private to the process.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace scancheck::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

//! A directory for this process's inputs, removed at exit.
inline const std::filesystem::path& scratch() {
  struct Scratch {
    std::filesystem::path dir;
    Scratch() {
      const std::filesystem::path shm = "/dev/shm";
      dir = (std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path()) /
            ("scancheck-fuzz-" + std::to_string(::getpid()));
      std::filesystem::create_directories(dir);
    }
    ~Scratch() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  };
  static const Scratch s;
  return s.dir;
}

inline std::filesystem::path put_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

//! Runs `parse`; an InputError is the expected answer to bad input, anything else escapes to libFuzzer.
template <class Parse>
void expect_clean_rejection(Parse parse) {
  try {
    parse();
  } catch (const InputError&) {
  }
}

}  // namespace scancheck::fuzz
