// SPDX-License-Identifier: Apache-2.0
#include "backends/foreign/plugin_host.hpp"

#include <unistd.h>

#include <climits>
#include <cstdio>

#include <fmt/format.h>

namespace scancheck::foreign {
namespace {

//! A word that split_shell_words reads back as itself.
std::string single_quoted(const std::string& word) {
  std::string out = "'";
  for (char ch : word) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string this_executable() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string("scancheck");
}

}  // namespace

std::string plugin_host_command(const std::string& plugin_path) {
  return fmt::format("{} plugin-host {}", single_quoted(this_executable()), single_quoted(plugin_path));
}

int serve_plugin(const std::string& plugin_path) {
  std::fprintf(stderr, "scancheck plugin-host: C ABI plugins are not implemented yet (%s)\n", plugin_path.c_str());
  return 2;
}

}  // namespace scancheck::foreign
