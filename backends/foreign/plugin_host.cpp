// SPDX-License-Identifier: Apache-2.0
#include "backends/foreign/plugin_host.hpp"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include "backends/foreign/shell_words.hpp"

#include "backends/foreign/plugin.hpp"
#include "core/case_dir.hpp"
#include "core/error.hpp"
#include "core/npy.hpp"

namespace scancheck::foreign {
namespace {

using nlohmann::json;

std::string this_executable() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string("scancheck");
}

//! One line on stderr, the plugin host's only way to explain itself (scancheck keeps it as the log).
void log_line(const std::string& what) { std::fprintf(stderr, "scancheck plugin-host: %s\n", what.c_str()); }

//! The protocol's channel: a private copy of the original stdout. File descriptor 1 itself then points at
//! stderr, so whatever the plugin prints (printf debugging, a library's banner) lands in the log instead
//! of corrupting the protocol.
class Channel {
 public:
  Channel() : fd_(::dup(STDOUT_FILENO)) {
    std::fflush(stdout);
    if (fd_ >= 0) ::dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  bool ok() const { return fd_ >= 0; }
  //! Writes `line` and a newline; false when scancheck no longer reads.
  bool send(const std::string& line) const {
    const std::string text = line + "\n";
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

 private:
  int fd_;
};

//! A JSON line that never throws: messages from a plugin may hold bytes that are not UTF-8.
std::string dumped(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

//! Answers one run request: the case loaded, the backend run, its outputs written as .npy into `out`.
json run_answer(Plugin& plugin, const json& request) {
  const std::int64_t id = request.at("id").get<std::int64_t>();
  const std::string token = request.at("backend").get<std::string>();
  const std::filesystem::path case_dir = request.at("case").get<std::string>(),
                              out = request.at("out").get<std::string>();
  const auto failed = [id](const std::string& error) { return json{{"id", id}, {"ok", false}, {"error", error}}; };
  const std::optional<std::size_t> index = plugin.find(token);
  if (!index) return failed(fmt::format("plugin {} has no backend '{}'", plugin.path(), token));
  try {
    const Case c = load_case(case_dir);
    const Outputs outputs = plugin.run(*index, c);
    for (const auto& [name, tensor] : outputs) write_npy(out / (name + ".npy"), tensor);
  } catch (const PluginDeviceFault& e) {
    // The CUDA context may be lost: every later run would fail. Exiting makes this run a fault and lets
    // scancheck start a fresh host for the next.
    log_line(fmt::format("{} on run {}: {}; exiting (the CUDA context may be lost)", token, id, e.what()));
    std::fflush(stderr);
    std::_Exit(3);
  } catch (const std::exception& e) {
    return failed(e.what());
  }
  return json{{"id", id}, {"ok", true}};
}

}  // namespace

std::string plugin_host_command(const std::string& plugin_path) {
  std::error_code ignored;
  const std::filesystem::path absolute = std::filesystem::absolute(plugin_path, ignored);
  return fmt::format("{} plugin-host {}", quoted_word(this_executable()),
                     quoted_word(absolute.empty() ? plugin_path : absolute.string()));
}

int serve_plugin(const std::string& plugin_path) {
  const Channel channel;
  if (!channel.ok()) {
    log_line("cannot duplicate stdout for the protocol");
    return 2;
  }
  std::unique_ptr<Plugin> plugin;
  try {
    plugin = std::make_unique<Plugin>(plugin_path);
  } catch (const std::exception& e) {
    log_line(e.what());
    return 2;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    json request;
    std::string op;
    try {
      request = json::parse(line);
      op = request.at("op").get<std::string>();
    } catch (const json::exception&) {
      log_line(fmt::format("not a request of the worker protocol: '{}'", line.substr(0, 200)));
      return 2;
    }
    std::string answer;
    if (op == "hello") {
      answer = plugin->hello_line();
    } else if (op == "run") {
      try {
        answer = dumped(run_answer(*plugin, request));
      } catch (const json::exception& e) {
        log_line(fmt::format("a run request without its fields ({}): '{}'", e.what(), line.substr(0, 200)));
        return 2;
      }
    } else if (op == "bye") {
      return 0;
    } else {
      log_line(fmt::format("unknown op '{}'", op));
      return 2;
    }
    if (!channel.send(answer)) return 0;  // scancheck has gone: nothing left to serve
  }
  return 0;
}

}  // namespace scancheck::foreign
