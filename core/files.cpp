// SPDX-License-Identifier: Apache-2.0
#include "core/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"

namespace scancheck {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void cannot_write(const fs::path& file, int error) {
  throw InputError(fmt::format("cannot write '{}': {}", file.string(), std::strerror(error)));
}

//! write(2) until `bytes` are out; returns 0 or the errno of the failure. EINTR (a signal the run will
//! notice after the write) is retried.
int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

}  // namespace

fs::path temporary_sibling(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  return fs::path(path.string() + fmt::format(".tmp-{}-{}", ::getpid(), counter++));
}

void write_file(const fs::path& file, std::initializer_list<std::string_view> parts) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) cannot_write(file, errno);
  int error = 0;
  for (std::string_view part : parts)
    if ((error = write_all(fd, part)) != 0) break;
  // close() reports the errors of delayed writes (NFS, some full file systems).
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(file.c_str());
    cannot_write(file, error);
  }
}

void write_file_atomically(const fs::path& file, std::initializer_list<std::string_view> parts) {
  const fs::path tmp = temporary_sibling(file);
  write_file(tmp, parts);
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) {
    fs::remove(tmp, ec);
    cannot_write(file, ec.value());
  }
}

void write_directory_atomically(const fs::path& dir, const std::function<void(const fs::path& tmp)>& fill) {
  const fs::path target = dir.has_filename() ? dir : dir.parent_path();  // "out/" names "out"
  const fs::path tmp = temporary_sibling(target);
  try {
    if (target.has_parent_path()) fs::create_directories(target.parent_path());
    fs::create_directory(tmp);
    fill(tmp);
    fs::remove_all(target);
    fs::rename(tmp, target);
  } catch (const fs::filesystem_error& e) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw InputError(fmt::format("cannot write directory '{}': {}", target.string(), e.code().message()));
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw;
  }
}

}  // namespace scancheck
