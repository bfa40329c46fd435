// SPDX-License-Identifier: Apache-2.0
//! @file
//! Splits a `--worker 'COMMAND'` into its words the way a POSIX shell splits a simple command, without
//! running a shell: words separated by blanks; '...' quotes literally; "..." quotes with \" \\ \$ \` and
//! \newline escaped; a backslash outside quotes escapes the next character. No variables, globs,
//! substitutions, pipes or redirections: those characters are ordinary. An unterminated quote or a
//! trailing backslash is an InputError, as is a command with no words.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace scancheck::foreign {

std::vector<std::string> split_shell_words(std::string_view command);

//! `word` quoted so that a shell (and split_shell_words) reads it back as one word: 'it'\''s'.
std::string quoted_word(std::string_view word);

}  // namespace scancheck::foreign
