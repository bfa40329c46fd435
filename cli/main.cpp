// SPDX-License-Identifier: Apache-2.0
//! @file
//! scancheck: exact references and differential tests for GPU scan backends of linear recurrences.
//! Exit codes: 0 success, 1 a check failed, 2 bad input (one line on stderr naming the problem).
#include <malloc.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "backends/backend.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "core/build_info.hpp"
#include "core/error.hpp"

namespace {

//! The one error line: messages that quote outside text (a worker's stderr, a file's contents) keep
//! their line breaks out of it, so scripts and CI logs see exactly one line per failure.
void print_error(const char* kind, std::string_view message) {
  std::string line(message);
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "scancheck: %s: %s\n", kind, line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) must be a write error (EFBIG: one line, exit 2, nothing partial left),
  // not a death by SIGXFSZ that leaves temporary files behind.
  std::signal(SIGXFSZ, SIG_IGN);
  // Keep freed memory in the heap: glibc maps every block over 32 MB on its own and unmaps it on free, so
  // each reference block and host-executor buffer at production shapes (hundreds of MB, case after case)
  // was faulted in again page by page, about 0.4 s per GB on these VMs (2 s the first time the VM backs
  // it). The price: the heap keeps its high-water mark until exit (11 GB for the seed-shapes report).
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
  scancheck::cli::watch_interrupts();
  scancheck::cli::remember_command_line(argc, argv);
  CLI::App app{"scancheck: exact references and differential tests for GPU scan backends"};
  app.require_subcommand(1);
  const scancheck::BuildInfo& build = scancheck::build_info();
  app.set_version_flag("--version", "scancheck " + build.version + " (git " + build.git_revision + ")");
  scancheck::cli::Action action;
  scancheck::cli::add_make_case(app, action);
  scancheck::cli::add_reference(app, action);
  scancheck::cli::add_list(app, action);
  scancheck::cli::add_run(app, action);
  scancheck::cli::add_check(app, action);
  scancheck::cli::add_verify(app, action);
  scancheck::cli::add_fuzz(app, action);
  scancheck::cli::add_property(app, action);
  scancheck::cli::add_report(app, action);
  scancheck::cli::add_render(app, action);
  scancheck::cli::add_diff(app, action);
  scancheck::cli::add_merge(app, action);
  scancheck::cli::add_history(app, action);
  scancheck::cli::add_calibrate(app, action);
  scancheck::cli::add_campaign(app, action);
  scancheck::cli::add_gla(app, action);
  scancheck::cli::add_plugin_host(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error("error", e.what());
    return 2;
  }
  try {
    return action();
  } catch (const scancheck::InputError& e) {
    print_error("error", e.what());
    return 2;
  } catch (const scancheck::BackendError& e) {
    print_error("backend failure", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "scancheck: error: out of memory (the shape is too large for this machine)\n");
    return 2;
  } catch (const std::exception& e) {  // a bug of scancheck's: one line, never an abort
    print_error("internal error", e.what());
    return 1;
  }
}
