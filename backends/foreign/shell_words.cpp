// SPDX-License-Identifier: Apache-2.0
#include "backends/foreign/shell_words.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace scancheck::foreign {

std::vector<std::string> split_shell_words(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  const auto fail = [&](std::string_view why) { throw InputError(fmt::format("--worker '{}': {}", command, why)); };
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char ch = command[i];
    if (ch == ' ' || ch == '\t' || ch == '\n') {
      if (in_word) words.push_back(std::move(word)), word.clear(), in_word = false;
      continue;
    }
    in_word = true;
    if (ch == '\\') {
      if (++i == command.size()) fail("ends in a backslash");
      if (command[i] != '\n') word += command[i];
    } else if (ch == '\'') {
      const std::size_t end = command.find('\'', i + 1);
      if (end == std::string_view::npos) fail("unterminated ' quote");
      word += command.substr(i + 1, end - i - 1);
      i = end;
    } else if (ch == '"') {
      for (++i;; ++i) {
        if (i == command.size()) fail("unterminated \" quote");
        if (command[i] == '"') break;
        if (command[i] == '\\' && i + 1 < command.size() &&
            std::string_view("\"\\$`\n").find(command[i + 1]) != std::string_view::npos) {
          if (command[++i] != '\n') word += command[i];
          continue;
        }
        word += command[i];
      }
    } else {
      word += ch;
    }
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) fail("no command");
  return words;
}

std::string quoted_word(std::string_view word) {
  std::string out = "'";
  for (char ch : word) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

}  // namespace scancheck::foreign
