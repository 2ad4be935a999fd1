// The stdio bridge's lines (stdio_bot.h): RequestLine, built without a copy of
// the request, is the very line BinaryLine gives for the wrapped message.
// And StdioBot::slow(), the host's account of a decision (docs/hosting.md,
// "A host that stalls"), with a real program that answers late. And
// ChildProcess's passed descriptors (ChildSetup::pass_fds), with real children.

#include "sdk/stdio/stdio_bot.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "sdk/stdio/child_process.h"

namespace tarock::stdio {
namespace {

v1::DecisionRequest Request(int events) {
  v1::DecisionRequest r;
  r.set_request_id(7);
  r.set_time_left_ms(1234);
  r.add_legal_actions("play T21");
  r.add_legal_actions("play HK");
  for (int i = 0; i < events; ++i) {
    v1::Event* e = r.mutable_observation()->add_history();
    e->set_seat(i % 4);
    e->set_action("play T" + std::to_string(1 + i % 21));
  }
  return r;
}

TEST(RequestLineTest, IsTheBinaryLineOfTheWrappedRequest) {
  // 0 events: a one-byte length; 40 and 400: two and more bytes of it.
  for (int events : {0, 40, 400}) {
    const v1::DecisionRequest r = Request(events);
    v1::RefereeMessage wrapped;
    *wrapped.mutable_decision_request() = r;
    const std::string line = RequestLine(r);
    EXPECT_EQ(line, BinaryLine(wrapped)) << events << " events";
    std::string bytes;
    ASSERT_TRUE(absl::Base64Unescape(line.substr(3), &bytes));
    v1::RefereeMessage back;
    ASSERT_TRUE(back.ParseFromString(bytes));
    EXPECT_EQ(back.decision_request().observation().history_size(), events);
  }
}

// A program that answers each request after `delay_s` seconds.
StdioOptions Answering(const std::string& delay_s) {
  StdioOptions o;
  o.command = {"/bin/sh", "-c", "while read l; do sleep " + delay_s + "; echo pass; done"};
  o.margin_ms = 50;
  return o;
}

sdk::Situation Asking(sdk::MatchInfo* match, v1::DecisionRequest* request) {
  match->time_control.set_grace_ms(50);
  request->set_request_id(1);
  request->set_time_left_ms(200);  // the program's time: 200 + 50 ms; half of it 125 ms
  request->add_legal_actions("pass");
  return sdk::Situation(*match, *request);
}

TEST(StdioBotSlowTest, AnAnswerInHalfTheTimeIsNotSlowOneAfterItIs) {
  sdk::MatchInfo match;
  v1::DecisionRequest request;
  StdioBot quick(Answering("0"));
  ASSERT_TRUE(quick.Start().ok());
  EXPECT_EQ(quick.Decide(Asking(&match, &request)), "pass");
  EXPECT_FALSE(quick.slow());
  StdioBot late(Answering("0.18"));  // in time (250 ms), but past half of it
  ASSERT_TRUE(late.Start().ok());
  EXPECT_EQ(late.Decide(Asking(&match, &request)), "pass");
  EXPECT_TRUE(late.slow());
  StdioBot silent(Answering("5"));
  ASSERT_TRUE(silent.Start().ok());
  EXPECT_EQ(silent.Decide(Asking(&match, &request)), "");
  EXPECT_TRUE(silent.timed_out());
  EXPECT_TRUE(silent.slow());
  quick.Finish();
  late.Finish();
  silent.Finish();
}

// Time the host was stopped (StdioOptions::stalled) is not the program's:
// its deadline moves by it, and it does not count towards slow().
TEST(StdioBotSlowTest, TimeTheHostWasStoppedIsNotTheProgramsTime) {
  sdk::MatchInfo match;
  v1::DecisionRequest request;
  StdioOptions o = Answering("0.4");  // past the 300 ms the bridge waits
  std::atomic<int64_t> stalled_ms{0};
  o.stalled = [&stalled_ms] { return absl::Milliseconds(stalled_ms.load()); };
  StdioBot bot(o);
  ASSERT_TRUE(bot.Start().ok());
  std::thread stop([&stalled_ms] {
    absl::SleepFor(absl::Milliseconds(100));
    stalled_ms = 390;  // as if the host had been stopped for 390 ms meanwhile
  });
  EXPECT_EQ(bot.Decide(Asking(&match, &request)), "pass");
  stop.join();
  EXPECT_FALSE(bot.timed_out());
  EXPECT_FALSE(bot.slow());  // 400 ms, less the 390 stopped
  bot.Finish();
}

// A memfd holding `text`, at descriptor `at` (free before).
int TextAt(const std::string& text, int at) {
  int fd = memfd_create("child-process-test", MFD_CLOEXEC);
  if (fd < 0 || write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) return -1;
  if (fcntl(at, F_GETFD) != -1 || dup3(fd, at, O_CLOEXEC) != at) return -1;
  close(fd);
  return at;
}

// The lines `argv` writes (until it closes its output or 10 s pass).
std::vector<std::string> Lines(ChildProcess& child) {
  std::vector<std::string> lines;
  std::string line;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (child.ReadLine(deadline, 100, &line) == ChildProcess::Io::kOk) lines.push_back(line);
  return lines;
}

// Two descriptors whose numbers here are each other's numbers in the child:
// each reaches the child under its own new number (moved one at a time, the
// second was overwritten by the first before it was moved: "one" twice).
TEST(ChildProcessTest, PassedDescriptorsMayTakeEachOthersNumbers) {
  ASSERT_EQ(TextAt("one\n", 200), 200);
  ASSERT_EQ(TextAt("two\n", 201), 201);
  ChildSetup setup;
  setup.pass_fds = {{200, 201}, {201, 200}};
  auto child = ChildProcess::Start({"/bin/cat", "/proc/self/fd/201", "/proc/self/fd/200"}, "",
                                   std::move(setup));
  close(200);
  close(201);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(Lines(**child), (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ((*child)->ExitDescription(), "exited with status 0");
}

// A number above the soft limit of open files, under the hard one, is given:
// the kernel's default soft limit (1024, init's and systemd's) is below the
// sandbox's numbers (up to 1034), and a silent exit 127 was all a host there
// got from bwrap (issue 43's guest).
TEST(ChildProcessTest, PassesADescriptorAboveTheSoftLimitOfOpenFiles) {
  struct rlimit files;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &files), 0);
  if (files.rlim_max != RLIM_INFINITY && files.rlim_max <= 300) GTEST_SKIP() << "hard limit too low";
  ASSERT_EQ(TextAt("above\n", 40), 40);
  struct rlimit low = {64, files.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  ChildSetup setup;
  setup.pass_fds = {{40, 300}};
  auto child = ChildProcess::Start({"/bin/sh", "-c", "cat /proc/self/fd/300; ulimit -Sn"}, "",
                                   std::move(setup));
  setrlimit(RLIMIT_NOFILE, &files);
  close(40);
  ASSERT_TRUE(child.ok()) << child.status();
  // The child's soft limit is this process's again once it is placed.
  EXPECT_EQ(Lines(**child), (std::vector<std::string>{"above", "64"}));
  EXPECT_EQ((*child)->ExitDescription(), "exited with status 0");
}

// Above the hard limit too: Start fails and names the descriptor (it started
// a child that exited 127 without a word).
TEST(ChildProcessTest, ADescriptorAboveTheHardLimitFailsTheStartNamingIt) {
  const pid_t pid = fork();  // the hard limit cannot come back up without privilege
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    struct rlimit low = {64, 64};
    if (TextAt("above\n", 40) != 40 || setrlimit(RLIMIT_NOFILE, &low) != 0) _exit(2);
    ChildSetup setup;
    setup.pass_fds = {{40, 300}};
    auto child = ChildProcess::Start({"/bin/true"}, "", std::move(setup));
    if (child.ok()) _exit(3);
    const std::string said(child.status().message());
    if (said == "cannot run /bin/true: cannot give it descriptor 300: the hard limit of open "
                "files here (64) is too low")
      _exit(0);
    fprintf(stderr, "Start said: %s\n", said.c_str());
    _exit(4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace tarock::stdio
