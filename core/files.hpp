// SPDX-License-Identifier: Apache-2.0
//! @file
//! Writing outputs so that a full disk, a file-size limit or a signal never leaves a partial file behind.
//! Every write goes through the POSIX calls, so the reason a write failed (ENOSPC "No space left on
//! device", EFBIG "File too large") reaches the user's one error line; files and directories are written
//! under a temporary sibling name ("<name>.tmp-<pid>-<n>") and renamed into place.
#pragma once

#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string_view>

namespace scancheck {

//! Writes the concatenation of `parts` to `file` (created or truncated). Throws InputError
//! "cannot write '<file>': <reason>" and removes what it wrote when any write fails.
void write_file(const std::filesystem::path& file, std::initializer_list<std::string_view> parts);

//! Writes `parts` to a temporary sibling of `file` and renames it over `file`: readers never see a
//! half-written file. Throws InputError naming the file when it cannot be written.
void write_file_atomically(const std::filesystem::path& file, std::initializer_list<std::string_view> parts);
inline void write_file_atomically(const std::filesystem::path& file, std::string_view contents) {
  write_file_atomically(file, {contents});
}

//! Creates `dir` atomically: `fill` writes into a fresh temporary sibling directory which is then renamed
//! to `dir` (replacing an existing `dir`). If `fill` throws, the temporary is removed and `dir` untouched.
void write_directory_atomically(const std::filesystem::path& dir,
                                const std::function<void(const std::filesystem::path& tmp)>& fill);

//! Creates `file` whole or not at all, when it does not exist: `fill` builds it at the path it is given (in
//! a fresh temporary sibling directory, so companions such as SQLite's -wal file stay in there), and that
//! file is then hard-linked to `file`, which fails if `file` exists by then. Of processes racing to create
//! one file, exactly one's becomes it and the others see it complete; none ever sees it half-built.
//! Returns false (and discards what `fill` built) when `file` existed. Throws InputError naming `file`.
bool create_file_exclusively(const std::filesystem::path& file,
                             const std::function<void(const std::filesystem::path& building)>& fill);

//! Throws InputError when `output` is `input` (or one of its parent directories): writing the output
//! would replace the input it is computed from. `flag` names the option, e.g. "--out".
void require_output_apart(const std::filesystem::path& input, const std::filesystem::path& output,
                          std::string_view flag);

//! Ends the process the way a signal should (cli/interrupt.hpp): waits for a rename into place in progress,
//! removes every temporary file and directory the functions above have in flight, and never returns the
//! lock, so no write completes after it. Only for the last thing a process does before _Exit.
void discard_temporaries_for_exit();

//! The temporary sibling names used above, "<path>.tmp-<pid>-<n>": unique within and across processes.
std::filesystem::path temporary_sibling(const std::filesystem::path& path);

}  // namespace scancheck
