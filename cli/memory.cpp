// SPDX-License-Identifier: Apache-2.0
#include "cli/memory.hpp"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace scancheck::cli {
namespace {

constexpr std::string_view huge_pages = "glibc.malloc.hugetlb=1";
//! Set only between the re-exec and its undoing: the user's GLIBC_TUNABLES ("=" and the value), or
//! "unset". Its presence also says the exec was done, so a kernel or loader that ignores the tunable
//! cannot make the program exec itself forever.
constexpr const char* saved_tunables = "SCANCHECK_USER_GLIBC_TUNABLES";

void reexec_with_huge_pages(char** argv) {
  const char* user = std::getenv("GLIBC_TUNABLES");
  if (user != nullptr && std::string_view(user).find("glibc.malloc.hugetlb") != std::string_view::npos) return;
  const std::string saved = user == nullptr ? std::string("unset") : fmt::format("={}", user);
  const std::string tuned =
      user == nullptr || *user == '\0' ? std::string(huge_pages) : fmt::format("{}:{}", user, huge_pages);
  if (setenv(saved_tunables, saved.c_str(), 1) != 0 || setenv("GLIBC_TUNABLES", tuned.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // No /proc, or not allowed: run as we are, with the user's environment as it was.
  if (user == nullptr) unsetenv("GLIBC_TUNABLES");
  else setenv("GLIBC_TUNABLES", user, 1);
  unsetenv(saved_tunables);
}

//! In the re-executed process: the environment as the user had it, for the worker processes we start.
void restore_user_tunables(std::string_view saved) {
  if (saved.starts_with('=')) setenv("GLIBC_TUNABLES", std::string(saved.substr(1)).c_str(), 1);
  else unsetenv("GLIBC_TUNABLES");
  unsetenv(saved_tunables);
}

}  // namespace

void tune_process_memory(char** argv) {
  if (const char* saved = std::getenv(saved_tunables)) restore_user_tunables(saved);
  else reexec_with_huge_pages(argv);
  // glibc maps every block over 32 MB on its own and unmaps it on free: each reference block and
  // host-executor buffer would be faulted in again for every case. Held in the heap instead, the
  // high-water mark is what the largest case needed, which the mappings reached as well.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
}

}  // namespace scancheck::cli
