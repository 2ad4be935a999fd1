#include "referee/net/listener_watchdog.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "referee/logging/log.h"

namespace tarock::net {
namespace {

// Waits for `events` on `fd` until `deadline`; false on timeout.
bool WaitFor(int fd, short events, absl::Time deadline) {
  for (;;) {
    const int64_t ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (ms <= 0) return false;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(ms));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return true;  // let the caller's next call say what is wrong
  }
}

}  // namespace

long RaiseOpenFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? -1 : static_cast<long>(limit.rlim_cur);
}

std::string ProbeHostFor(const std::string& listen_host) {
  std::string h = listen_host;
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (h.empty() || h == "0.0.0.0" || h == "localhost") return "127.0.0.1";
  if (h == "::") return "::1";
  return h;
}

namespace {

// The server's side of the connection from local port `client_port` to
// `server_port`, in /proc/net/tcp or tcp6: whether it has been accepted. A
// connection still in the listener's queue belongs to no file yet: its inode
// is 0. nullopt when there is no such row (closed meanwhile, or no /proc).
std::optional<bool> AcceptedPerProc(int server_port, int client_port) {
  for (const char* path : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream row(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      if (!(row >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
            timeout >> inode))
        continue;
      auto port_of = [](const std::string& address) {
        const size_t colon = address.rfind(':');
        return colon == std::string::npos ? -1 : std::stoi(address.substr(colon + 1), nullptr, 16);
      };
      if (port_of(local) != server_port || port_of(remote) != client_port) continue;
      return inode != "0";
    }
  }
  return std::nullopt;
}

}  // namespace

absl::Status ProbeListener(const std::string& host, int port, absl::Duration timeout) {
  sockaddr_storage address{};
  socklen_t length = 0;
  int family = AF_INET;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&address);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&address);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    length = sizeof *v4;
  } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    family = AF_INET6;
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    length = sizeof *v6;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("'", host, "' is not a numeric address"));
  }
  const int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return absl::ResourceExhaustedError(
        absl::StrCat("no socket for the probe: ", std::strerror(errno)));
  const absl::Time deadline = absl::Now() + timeout;
  auto fail = [&](absl::string_view why) {
    ::close(fd);
    return absl::UnavailableError(absl::StrCat("the listener on ", host, ":", port, " ", why));
  };
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), length) != 0) {
    if (errno != EINPROGRESS) return fail(absl::StrCat("refused the probe: ", std::strerror(errno)));
    if (!WaitFor(fd, POLLOUT, deadline)) return fail("did not complete a connection in time");
    int error = 0;
    socklen_t size = sizeof error;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
    if (error != 0) return fail(absl::StrCat("refused the probe: ", std::strerror(error)));
  }
  sockaddr_storage mine{};
  socklen_t mine_length = sizeof mine;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&mine), &mine_length);
  const int client_port = ntohs(mine.ss_family == AF_INET6
                                    ? reinterpret_cast<sockaddr_in6*>(&mine)->sin6_port
                                    : reinterpret_cast<sockaddr_in*>(&mine)->sin_port);
  // The kernel completes connections a server never accepts. Accepted shows
  // in /proc (the server's side has a file), or in an answer or a close
  // from the server. Nothing is sent: to the server this is a load
  // balancer's TCP check, which it closes without a word in its log.
  for (;;) {
    if (AcceptedPerProc(port, client_port).value_or(false)) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) > 0) break;  // bytes, an end of stream or a reset
    if (absl::Now() >= deadline) return fail("left the probe unaccepted");
    absl::SleepFor(absl::Milliseconds(20));
  }
  ::close(fd);
  return absl::OkStatus();
}

ListenerWatchdog::ListenerWatchdog(std::string name, std::string host, int port,
                                   ListenerWatchdogOptions options, std::function<void()> on_dead)
    : name_(std::move(name)), host_(std::move(host)), port_(port), options_(options),
      on_dead_(std::move(on_dead)) {
  thread_ = std::thread([this] { Run(); });
}

ListenerWatchdog::~ListenerWatchdog() { Stop(); }

void ListenerWatchdog::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void ListenerWatchdog::Run() {
  int dead = 0;
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      auto stopped = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_; };
      if (mu_.AwaitWithTimeout(absl::Condition(&stopped), options_.interval)) return;
    }
    const absl::Status probe = ProbeListener(host_, port_, options_.timeout);
    if (probe.ok()) {
      dead = 0;
      continue;
    }
    if (absl::IsInvalidArgument(probe)) {  // a host name: nothing this can probe
      logging::Warning("watchdog", "cannot probe the listener; the watchdog is off",
                       {{"listener", name_}, {"error", probe.ToString()}});
      return;
    }
    if (absl::IsResourceExhausted(probe)) {  // out of descriptors now: ask again later
      logging::Warning("watchdog", "cannot probe the listener",
                       {{"listener", name_}, {"error", probe.ToString()}});
      continue;
    }
    ++dead;
    logging::Warning("watchdog", "the listener did not answer",
                     {{"listener", name_}, {"error", probe.ToString()}, {"in_a_row", dead}});
    if (dead >= options_.failures_to_act) {
      logging::Error("watchdog", "the listener stopped accepting connections; exiting so that "
                     "the service manager restarts the process",
                     {{"listener", name_}, {"port", port_}});
      on_dead_();
      return;
    }
  }
}

}  // namespace tarock::net
