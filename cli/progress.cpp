// SPDX-License-Identifier: Apache-2.0
#include "cli/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace scancheck::cli {

ProgressLine::ProgressLine() : terminal_(isatty(fileno(stderr)) != 0) {}

ProgressLine::~ProgressLine() {
  if (terminal_ && shown_) std::fprintf(stderr, "\n");
}

void ProgressLine::show(const std::string& line, double elapsed, bool milestone) {
  if (terminal_) {
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    shown_ = true;
  } else if (milestone || elapsed - last_logged_ >= 10) {
    std::fprintf(stderr, "%s\n", line.c_str());
    last_logged_ = elapsed;
  }
  std::fflush(stderr);
}

std::string ProgressLine::bar(double done, int width) {
  const int filled = std::clamp(static_cast<int>(done * width), 0, width);
  std::string out(static_cast<std::size_t>(width) + 2, '.');
  out.front() = '[';
  out.back() = ']';
  std::fill_n(out.begin() + 1, filled, '#');
  return out;
}

}  // namespace scancheck::cli
