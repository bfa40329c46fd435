// SPDX-License-Identifier: Apache-2.0
//! @file
//! The progress display of long subcommands (fuzz, report): on a terminal one live line on stderr,
//! rewritten in place; in logs (stderr not a terminal) a plain line every ten seconds, and at milestones.
#pragma once

#include <string>

namespace scancheck::cli {

class ProgressLine {
 public:
  ProgressLine();
  ~ProgressLine();  //!< ends the live line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  //! Shows `line`, `elapsed` seconds into the run; in logs only every ten seconds or when `milestone`.
  void show(const std::string& line, double elapsed, bool milestone = false);

  //! "[#####...............]": `done` of 1 in `width` characters.
  static std::string bar(double done, int width = 20);

 private:
  bool terminal_;
  bool shown_ = false;
  double last_logged_ = -1e300;
};

}  // namespace scancheck::cli
