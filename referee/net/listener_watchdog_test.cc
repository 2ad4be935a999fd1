// Issue 29: the probe that tells a live listener from one that stopped
// accepting (grpc/grpc#20418).

#include "referee/net/listener_watchdog.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace tarock::net {
namespace {

// A loopback listening socket; returns its port.
int Listen(int* fd) {
  *fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(*fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  EXPECT_EQ(::listen(*fd, 16), 0);
  socklen_t len = sizeof a;
  ::getsockname(*fd, reinterpret_cast<sockaddr*>(&a), &len);
  return ntohs(a.sin_port);
}

TEST(ListenerProbeTest, AListenerThatNeverAcceptsIsDead) {
  int fd;
  const int port = Listen(&fd);
  const absl::Time start = absl::Now();
  absl::Status s = ProbeListener("127.0.0.1", port, absl::Milliseconds(300));
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));  // bounded by the timeout
  ::close(fd);
  EXPECT_TRUE(absl::IsUnavailable(ProbeListener("127.0.0.1", port, absl::Milliseconds(300))));
}

TEST(ListenerProbeTest, AListenerThatAcceptsIsAlive) {
  int fd;
  const int port = Listen(&fd);
  std::thread server([fd] {
    for (int i = 0; i < 2; ++i) {
      const int c = ::accept(fd, nullptr, nullptr);
      if (c < 0) return;
      char buffer[64];
      (void)::recv(c, buffer, sizeof buffer, 0);
      if (i == 0) (void)::send(c, "x", 1, MSG_NOSIGNAL);  // answers
      ::close(c);                                          // or just closes (TLS refusing)
    }
  });
  EXPECT_TRUE(ProbeListener("127.0.0.1", port, absl::Seconds(5)).ok());
  EXPECT_TRUE(ProbeListener("127.0.0.1", port, absl::Seconds(5)).ok());
  server.join();
  ::close(fd);
}

TEST(ListenerProbeTest, ProbeHosts) {
  EXPECT_EQ(ProbeHostFor("0.0.0.0"), "127.0.0.1");
  EXPECT_EQ(ProbeHostFor(""), "127.0.0.1");
  EXPECT_EQ(ProbeHostFor("[::]"), "::1");
  EXPECT_EQ(ProbeHostFor("10.1.2.3"), "10.1.2.3");
  EXPECT_EQ(ProbeHostFor("[::1]"), "::1");
}

TEST(ListenerWatchdogTest, ActsAfterFailuresInARowAndStops) {
  int fd;
  const int port = Listen(&fd);  // never accepts
  std::atomic<bool> acted{false};
  ListenerWatchdog dog("test", "127.0.0.1", port,
                       {.interval = absl::Milliseconds(20), .timeout = absl::Milliseconds(100),
                        .failures_to_act = 2},
                       [&] { acted.store(true); });
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!acted.load() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(10));
  EXPECT_TRUE(acted.load());
  dog.Stop();
  ::close(fd);
}

TEST(OpenFileLimitTest, TheSoftLimitRisesToTheHardOne) {
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  rlimit lowered = before;
  if (lowered.rlim_max > 256) lowered.rlim_cur = 256;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
  const long now = RaiseOpenFileLimit();
  rlimit after{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &after), 0);
  EXPECT_EQ(after.rlim_cur, before.rlim_max);
  EXPECT_TRUE(now == -1 || static_cast<rlim_t>(now) == after.rlim_cur);
}

}  // namespace
}  // namespace tarock::net
