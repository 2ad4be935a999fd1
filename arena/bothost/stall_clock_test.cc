// StallClock counts the time its process was stopped: a child process with a
// clock is stopped (SIGSTOP) for 400 ms, then goes on (SIGCONT).

#include "arena/bothost/stall_clock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>

namespace tarock::bothost {
namespace {

TEST(StallClockTest, ARunningProcessIsNotStalled) {
  StallClock clock;
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_LT(clock.Stalled(), absl::Milliseconds(100));  // scheduling noise at most
}

TEST(StallClockTest, ATimeStoppedCountsAsStalledAtOnceOnResuming) {
  int to_parent[2], to_child[2];
  ASSERT_EQ(pipe(to_parent), 0);
  ASSERT_EQ(pipe(to_child), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    StallClock clock;
    absl::SleepFor(absl::Milliseconds(50));
    const int64_t before = absl::ToInt64Milliseconds(clock.Stalled());
    char c = 'r';
    if (write(to_parent[1], &c, 1) != 1) _exit(2);
    // Stopped here by the parent; on resuming, reads right away (before the
    // ticker has run, as a thread that was waiting for a bot's answer would).
    if (read(to_child[0], &c, 1) != 1) _exit(2);
    const int64_t after = absl::ToInt64Milliseconds(clock.Stalled());
    const int64_t stalled = after - before;
    if (write(to_parent[1], &stalled, sizeof stalled) != sizeof stalled) _exit(2);
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(to_parent[0], &c, 1), 1);
  absl::SleepFor(absl::Milliseconds(20));
  ASSERT_EQ(kill(child, SIGSTOP), 0);
  ASSERT_EQ(write(to_child[1], "g", 1), 1);  // waits in the pipe while the child is stopped
  absl::SleepFor(absl::Milliseconds(400));
  ASSERT_EQ(kill(child, SIGCONT), 0);
  int64_t stalled = -1;
  ASSERT_EQ(read(to_parent[0], &stalled, sizeof stalled), static_cast<ssize_t>(sizeof stalled));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // 400 ms stopped, less the period and the tolerance (30 ms); a loaded
  // machine may add a little.
  EXPECT_GE(stalled, 330);
  EXPECT_LE(stalled, 1500);
}

}  // namespace
}  // namespace tarock::bothost
