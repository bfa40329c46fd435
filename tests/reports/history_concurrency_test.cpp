// SPDX-License-Identifier: Apache-2.0
//! @file
//! Several processes and threads adding to one history at once (reports/history.hpp): the shards of a
//! nightly campaign each run `history add` as they finish. Every racer is released at one instant (a pipe
//! closed, a latch), there are more of them than this machine has cores, and each scenario lose nothing:
//! every report stored once, the file whole (integrity_check) and marked ours. Racing to create a new file,
//! to upgrade an empty one and to upgrade a version-one database are three paths through History's
//! constructor; a foreign SQLite file raced over stays refused and untouched. Label concurrency:
//! ci/stress.sh runs these many times, idle and with both cores loaded.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "reports/history.hpp"
#include "tests/reports/history_fixtures.hpp"
#include "tests/test_support.hpp"

namespace scancheck::reports {
namespace {

using namespace history_fixtures;
using test::TempDir;

//! More racers than cores, so that some are descheduled in the middle of what they do.
int racers() { return std::max(8, 2 * static_cast<int>(std::thread::hardware_concurrency()) + 2); }

//! `processes` children add `per_child` reports each to `db` (child c the nightly reports from
//! first + c * per_child on), all released at the same instant; returns a line for each child that failed.
std::vector<std::string> add_from_processes(const fs::path& db, int processes, int per_child, int first = 1) {
  int release[2];
  EXPECT_EQ(::pipe(release), 0);
  const fs::path errors = db.parent_path() / "errors";
  fs::create_directories(errors);
  std::vector<pid_t> children;
  for (int c = 0; c < processes; ++c) {
    const pid_t pid = ::fork();
    EXPECT_GE(pid, 0);
    if (pid == 0) {
      ::close(release[1]);
      char byte;
      while (::read(release[0], &byte, 1) > 0) {
      }  // EOF: the parent let everyone go
      int status = 0;
      try {
        History h(db, History::Open::create_or_upgrade);
        for (int i = 0; i < per_child; ++i) status |= h.add(nightly(first + c * per_child + i)).added ? 0 : 1;
      } catch (const std::exception& e) {
        std::ofstream(errors / std::to_string(c)) << e.what();
        status = 2;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  ::close(release[0]);
  ::close(release[1]);
  std::vector<std::string> out;
  for (std::size_t c = 0; c < children.size(); ++c) {
    int status = 0;
    EXPECT_EQ(::waitpid(children[c], &status, 0), children[c]);
    std::string line;
    std::getline(std::ifstream(errors / std::to_string(c)), line);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
      out.push_back(fmt::format("child {} (status {}): {}", c, status, line.empty() ? "added a report twice" : line));
  }
  return out;
}

//! `db` holds reports 1..count of the nightly series, each once, in a whole file. Each has 12 rows but the
//! first may have been written by hand with `first_rows` (write_v1_database).
void expect_all_stored(const fs::path& db, int count, int first_rows = 12) {
  const History h(db, History::Open::existing);
  const std::vector<HistoryEntry> all = h.reports({"nightly"});
  ASSERT_EQ(all.size(), static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < all.size(); ++i)
    EXPECT_EQ(all[i].generated_at, nightly(static_cast<int>(i) + 1).generated_at);
  RawDb raw(db);
  EXPECT_EQ(raw.integer("SELECT count(*) FROM report_rows"), first_rows + (count - 1) * 12);
  EXPECT_EQ(raw.text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(raw.integer("PRAGMA user_version"), history_schema_version);
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
}

//! Nothing but the database and its WAL companions is left beside it (no temporary of the creation).
void expect_nothing_else_beside(const fs::path& db) {
  for (const auto& entry : fs::directory_iterator(db.parent_path())) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "errors" || name.rfind(db.filename().string(), 0) == 0) << name;
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
  }
}

constexpr int per_child = 4;

TEST(HistoryConcurrency, ProcessesCreatingOneFileLoseNothing) {
  TempDir dir;
  const int processes = racers();
  EXPECT_EQ(add_from_processes(dir / "h.db", processes, per_child), std::vector<std::string>{});
  expect_all_stored(dir / "h.db", processes * per_child);
  expect_nothing_else_beside(dir / "h.db");
}

TEST(HistoryConcurrency, ProcessesUpgradingAnEmptyFileLoseNothing) {
  TempDir dir;
  std::ofstream(dir / "h.db").flush();  // `touch h.db`: SQLite takes an empty file for a new database
  const int processes = racers();
  EXPECT_EQ(add_from_processes(dir / "h.db", processes, per_child), std::vector<std::string>{});
  expect_all_stored(dir / "h.db", processes * per_child);
}

TEST(HistoryConcurrency, ProcessesUpgradingAVersionOneDatabaseLoseNothing) {
  TempDir dir;
  write_v1_database(dir / "h.db", nightly(1));
  const int processes = racers();
  EXPECT_EQ(add_from_processes(dir / "h.db", processes, per_child, 2), std::vector<std::string>{});
  expect_all_stored(dir / "h.db", 1 + processes * per_child, 1);
}

TEST(HistoryConcurrency, AForeignDatabaseRacedOverStaysRefusedAndUntouched) {
  TempDir dir;
  {
    RawDb foreign(dir / "theirs.db");
    foreign.exec("CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT)");
  }
  const auto before = fs::file_size(dir / "theirs.db");
  const std::vector<std::string> errors = add_from_processes(dir / "theirs.db", racers(), 1);
  ASSERT_EQ(errors.size(), static_cast<std::size_t>(racers()));
  for (const std::string& e : errors) EXPECT_TRUE(test::contains(e, "not a scancheck history")) << e;
  EXPECT_EQ(fs::file_size(dir / "theirs.db"), before);
  RawDb raw(dir / "theirs.db");
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "delete");  // not switched to WAL either
  EXPECT_EQ(raw.integer("PRAGMA user_version"), 0);
}

TEST(HistoryConcurrency, ThreadsAddingAtOnceLoseNothing) {
  TempDir dir;
  const int threads = racers();
  std::latch start(threads);
  std::vector<std::thread> running;
  std::vector<std::string> errors(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t)
    running.emplace_back([&, t] {
      start.arrive_and_wait();
      try {
        History h(dir / "h.db", History::Open::create_or_upgrade);  // a connection per thread
        for (int i = 0; i < per_child; ++i) h.add(nightly(1 + t * per_child + i));
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(t)] = e.what();
      }
    });
  for (std::thread& t : running) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  expect_all_stored(dir / "h.db", threads * per_child);
}

}  // namespace
}  // namespace scancheck::reports
