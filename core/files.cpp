// SPDX-License-Identifier: Apache-2.0
#include "core/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>

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

//! An error message about a temporary, naming instead the path the user gave.
std::string renamed_in_message(std::string message, const fs::path& temporary, const fs::path& shown) {
  for (std::size_t at; (at = message.find(temporary.string())) != std::string::npos;)
    message.replace(at, temporary.string().size(), shown.string());
  return message;
}

//! The temporaries in flight, and the lock that makes "rename into place" and "discard at exit" exclusive.
struct InFlight {
  std::mutex mutex;
  std::set<fs::path> paths;
};
InFlight& in_flight() {
  static InFlight* registry = new InFlight;  // never destroyed: a signal may end the process at any time
  return *registry;
}

//! Registers a temporary for the time it exists; `commit` renames it into place under the lock.
class Temporary {
 public:
  explicit Temporary(fs::path path) : path_(std::move(path)) {
    std::lock_guard lock(in_flight().mutex);
    in_flight().paths.insert(path_);
  }
  ~Temporary() {
    std::lock_guard lock(in_flight().mutex);
    in_flight().paths.erase(path_);
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  const fs::path& path() const { return path_; }

  template <class Commit>
  void commit(Commit rename_into_place) {
    std::lock_guard lock(in_flight().mutex);
    rename_into_place();
    in_flight().paths.erase(path_);
  }

 private:
  fs::path path_;
};

}  // namespace

void require_output_apart(const fs::path& input, const fs::path& output, std::string_view flag) {
  const auto resolved = [](const fs::path& p) {
    std::error_code ec;
    fs::path r = fs::weakly_canonical(p, ec).lexically_normal();
    return r.has_filename() ? r : r.parent_path();  // "dir/" is "dir"
  };
  const fs::path in = resolved(input), out = resolved(output);
  const auto [out_end, in_it] = std::mismatch(out.begin(), out.end(), in.begin(), in.end());
  if (out_end == out.end())
    throw InputError(fmt::format("{} '{}' holds the input '{}': writing it would replace what it is computed from",
                                 flag, output.string(), input.string()));
}

bool create_file_exclusively(const fs::path& file, const std::function<void(const fs::path& building)>& fill) {
  if (fs::exists(fs::symlink_status(file))) return false;
  Temporary temporary(temporary_sibling(file));
  const fs::path building = temporary.path() / file.filename();
  int error = 0;
  try {
    fs::create_directory(temporary.path());
    fill(building);
    if (::link(building.c_str(), file.c_str()) != 0) error = errno;
  } catch (const fs::filesystem_error& e) {
    error = e.code().value();
  } catch (const InputError& e) {  // from `fill`: name the file where the user will look for it
    std::error_code ignored;
    fs::remove_all(temporary.path(), ignored);
    throw InputError(renamed_in_message(e.what(), building, file));
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(temporary.path(), ignored);
    throw;
  }
  std::error_code ignored;
  fs::remove_all(temporary.path(), ignored);
  if (error == EEXIST) return false;
  if (error != 0) cannot_write(file, error);
  return true;
}

void discard_temporaries_for_exit() {
  in_flight().mutex.lock();  // held until the process ends
  std::error_code ignored;
  for (const fs::path& p : in_flight().paths) fs::remove_all(p, ignored);
}

fs::path temporary_sibling(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  return fs::path(path.string() + fmt::format(".tmp-{}-{}", ::getpid(), counter++));
}

namespace {

//! write_file of `file`, whose errors name `shown` (the name the user gave, not a temporary one).
void write_file_as(const fs::path& file, std::initializer_list<std::string_view> parts, const fs::path& shown) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) cannot_write(shown, errno);
  int error = 0;
  for (std::string_view part : parts)
    if ((error = write_all(fd, part)) != 0) break;
  // close() reports the errors of delayed writes (NFS, some full file systems).
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(file.c_str());
    cannot_write(shown, error);
  }
}

}  // namespace

void write_file(const fs::path& file, std::initializer_list<std::string_view> parts) {
  write_file_as(file, parts, file);
}

void write_file_atomically(const fs::path& file, std::initializer_list<std::string_view> parts) {
  Temporary tmp(temporary_sibling(file));
  write_file_as(tmp.path(), parts, file);
  std::error_code ec;
  tmp.commit([&] { fs::rename(tmp.path(), file, ec); });
  if (ec) {
    fs::remove(tmp.path(), ec);
    cannot_write(file, ec.value());
  }
}

namespace {

//! The directory `dir` names ("out/" names "out"); a name ending in "." or ".." is refused (replacing it
//! would replace a directory the user named only as a place, often the current one), and so is a path
//! that exists and is not a directory: replacing it would delete what the user did not ask to replace.
fs::path directory_target(const fs::path& dir) {
  fs::path target = dir.lexically_normal();
  if (!target.has_filename()) target = target.parent_path();
  if (target.empty() || dir.filename() == "." || dir.filename() == ".." || target.filename() == "." ||
      target.filename() == "..")
    throw InputError(fmt::format(
        "cannot write directory '{}': name a new or existing output directory, not '.' or '..'", dir.string()));
  if (fs::exists(fs::symlink_status(target)) && !fs::is_directory(fs::symlink_status(target)))
    throw InputError(fmt::format("cannot write directory '{}': it exists and is not a directory", dir.string()));
  return target;
}

}  // namespace

void write_directory_atomically(const fs::path& dir, const std::function<void(const fs::path& tmp)>& fill) {
  const fs::path target = directory_target(dir);
  Temporary temporary(temporary_sibling(target));
  const fs::path& tmp = temporary.path();
  try {
    if (target.has_parent_path()) fs::create_directories(target.parent_path());
    fs::create_directory(tmp);
    fill(tmp);
    // The old directory moves aside first and comes back if the new one cannot take its place.
    Temporary previous(temporary_sibling(target));
    temporary.commit([&] {
      const bool replacing = fs::exists(target);
      if (replacing) fs::rename(target, previous.path());
      std::error_code ec;
      fs::rename(tmp, target, ec);
      if (ec) {
        if (replacing) fs::rename(previous.path(), target);
        throw fs::filesystem_error("rename", tmp, target, ec);
      }
    });
    std::error_code ignored;
    fs::remove_all(previous.path(), ignored);
  } catch (const fs::filesystem_error& e) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw InputError(fmt::format("cannot write directory '{}': {}", target.string(), e.code().message()));
  } catch (const InputError& e) {  // a file inside: name it where the user will look for it
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw InputError(renamed_in_message(e.what(), tmp, target));
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw;
  }
}

}  // namespace scancheck
