// SPDX-License-Identifier: Apache-2.0
//! @file
//! The report directory (render/report_files.hpp): write_report writes report.json, report.md and report.html
//! of a real report (tests/reports/small_report.hpp) or nothing, and no temporary is left behind. The directory
//! lands under SCANCHECK_TEST_REPORTS, where report_schema_test validates its report.json.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "render/report_files.hpp"
#include "reports/model.hpp"
#include "tests/reports/small_report.hpp"

namespace scancheck::render {
namespace {

namespace fs = std::filesystem;
using namespace reports;
using fixtures::small_report;

const fs::path test_reports = fs::path(SCANCHECK_TEST_REPORTS) / "report_files_test";

TEST(ReportFiles, WriteReportWritesAllThreeFilesAndNoTemporary) {
  const fs::path dir = test_reports / "small";
  write_report(small_report(), dir);
  for (const char* name : {"report.json", "report.md", "report.html"}) {
    ASSERT_TRUE(fs::exists(dir / name)) << name;
    EXPECT_GT(fs::file_size(dir / name), 500u) << name;
  }
  for (const auto& entry : fs::directory_iterator(dir.parent_path()))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
  EXPECT_EQ(to_json(load_report(dir / "report.json")), to_json(small_report()));
}

TEST(ReportFiles, AnUnwritableDirectoryIsAnInputErrorAndLeavesNothing) {
  const fs::path blocker = test_reports / "not-a-directory";
  fs::create_directories(test_reports);
  std::ofstream(blocker) << "a file where the report's parent directory should be\n";
  EXPECT_THROW(write_report(small_report(), blocker / "report"), InputError);
  EXPECT_TRUE(fs::is_regular_file(blocker));
  for (const auto& entry : fs::directory_iterator(test_reports))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace scancheck::render
