// HttpServer against real sockets on 127.0.0.1 (free ports): routing and
// requests as handlers see them, the security headers, the limits and
// timeouts that keep slow, many and oversized clients from exhausting it,
// the trusted-proxy client address, server-sent event streams, and a prompt
// Stop(). Waits are bounded (socket receive timeouts, deadlines), never a
// sleep that a slow machine could lose.

#include "referee/metrics/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tarock::metrics {
namespace {

using Clock = std::chrono::steady_clock;

// A blocking client socket to 127.0.0.1:port from `source` (any 127/8
// address), with receive and send timeouts so no read waits forever.
int Connect(int port, const char* source = "127.0.0.1", int timeout_ms = 10000) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) {
    close(fd);
    return -1;
  }
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

struct Reply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

// Reads one response (a Content-Length body, or to the end of the stream).
// nullopt when the connection ends or times out before a whole head.
std::optional<Reply> ReadReply(int fd, bool head_only = false) {
  std::string data;
  char buf[4096];
  size_t end;
  while ((end = data.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return std::nullopt;
    data.append(buf, static_cast<size_t>(n));
  }
  Reply r;
  std::vector<std::string> lines = absl::StrSplit(data.substr(0, end), "\r\n");
  std::vector<std::string> status = absl::StrSplit(lines[0], ' ');
  if (status.size() < 2 || !absl::SimpleAtoi(status[1], &r.status)) return std::nullopt;
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t colon = lines[i].find(':');
    if (colon == std::string::npos) continue;
    r.headers[absl::AsciiStrToLower(lines[i].substr(0, colon))] =
        std::string(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
  }
  r.body = data.substr(end + 4);
  if (head_only) return r;
  size_t length = 0;
  const bool sized = r.headers.count("content-length") &&
                     absl::SimpleAtoi(r.headers["content-length"], &length);
  while (!sized || r.body.size() < length) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    r.body.append(buf, static_cast<size_t>(n));
  }
  return r;
}

std::optional<Reply> Fetch(int port, const std::string& request, const char* source = "127.0.0.1") {
  int fd = Connect(port, source);
  if (fd < 0) return std::nullopt;
  std::optional<Reply> r;
  if (SendAll(fd, request)) r = ReadReply(fd);
  close(fd);
  return r;
}

std::string Get(const std::string& target, const std::string& extra = "") {
  return absl::StrCat("GET ", target, " HTTP/1.1\r\nHost: t\r\n", extra, "Connection: close\r\n\r\n");
}

// Whether the server closes `fd` (EOF or reset) within `within`; data it
// sends first (a 503, say) is read and skipped.
bool ClosedWithin(int fd, std::chrono::milliseconds within) {
  const auto deadline = Clock::now() + within;
  char buf[4096];
  while (Clock::now() < deadline) {
    timeval tv{0, 100 * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n == 0) return true;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return true;
  }
  return false;
}

long RssKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (absl::StartsWith(line, "VmRSS:")) {
      long kib = 0;
      std::vector<std::string> parts = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (parts.size() >= 2 && absl::SimpleAtoi(parts[1], &kib)) return kib;
    }
  }
  return 0;
}

HttpResponse Text(std::string body) {
  HttpResponse r;
  r.content_type = "text/plain";
  r.body = std::move(body);
  return r;
}

// Echoes what the handler saw.
void AddEcho(HttpServer* server) {
  server->Get("/echo/(\\w+)", [](const HttpRequest& req) {
    std::string out = absl::StrCat(req.method, " ", req.path, " m=", req.matches[1]);
    for (const auto& [k, v] : req.query) absl::StrAppend(&out, " ", k, "=", v);
    absl::StrAppend(&out, " addr=", req.remote_addr, " proxy=", req.via_proxy ? 1 : 0);
    return Text(out);
  });
  server->Post("/echo", [](const HttpRequest& req) { return Text(req.body); });
}

TEST(HttpServerTest, RoutesQueriesBodiesAndNotFound) {
  HttpServer server;
  AddEcho(&server);
  server.Get("/csp", [](const HttpRequest&) {
    HttpResponse r = Text("x");
    r.headers.push_back({"Content-Security-Policy", "default-src 'none'"});
    return r;
  });
  server.SetNotFound([](const HttpRequest& req) {
    HttpResponse r = Text("nothing at " + req.path);
    r.status = 404;
    return r;
  });
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.status();

  std::optional<Reply> r = Fetch(*port, Get("/echo/abc?x=1+2&y=%41%zz&x=3"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "GET /echo/abc m=abc x=3 y=A%zz addr=127.0.0.1 proxy=0");
  // Security headers on every response, the handler's own CSP kept.
  EXPECT_EQ(r->headers["x-content-type-options"], "nosniff");
  EXPECT_EQ(r->headers["x-frame-options"], "DENY");
  EXPECT_EQ(r->headers["referrer-policy"], "no-referrer");
  EXPECT_TRUE(absl::StrContains(r->headers["content-security-policy"], "frame-ancestors 'none'"));
  r = Fetch(*port, Get("/csp"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->headers["content-security-policy"], "default-src 'none'");

  r = Fetch(*port, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "hello");
  // Chunked under the limit is read whole.
  r = Fetch(*port,
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "abcde");

  r = Fetch(*port, Get("/nowhere"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body, "nothing at /nowhere");
  EXPECT_EQ(r->headers["x-content-type-options"], "nosniff");

  // HEAD answers like GET, without the body.
  int fd = Connect(*port);
  ASSERT_TRUE(SendAll(fd, "HEAD /echo/abc HTTP/1.1\r\nHost: t\r\n\r\n"));
  r = ReadReply(fd, true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->headers["content-length"], "0");
  // Kept alive: a second request on the same connection.
  ASSERT_TRUE(SendAll(fd, Get("/echo/two")));
  r = ReadReply(fd);
  ASSERT_TRUE(r);
  EXPECT_TRUE(absl::StartsWith(r->body, "GET /echo/two")) << r->body;
  close(fd);

  // Garbage is a 400.
  r = Fetch(*port, "NOT HTTP AT ALL\r\n\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
}

TEST(HttpServerTest, AdmitHookAnswersInsteadOfTheRoute) {
  std::atomic<int> handled{0};
  HttpServerOptions o;
  o.admit = [](const HttpRequest& r) -> std::optional<HttpResponse> {
    if (r.query.count("deny") == 0) return std::nullopt;
    HttpResponse refused = Text("slow down");
    refused.status = 429;
    refused.headers.push_back({"Retry-After", "3"});
    return refused;
  };
  HttpServer server(o);
  server.Post("/p", [&](const HttpRequest&) {
    ++handled;
    return Text("ok");
  });
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  std::optional<Reply> r =
      Fetch(*port, "POST /p?deny=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->headers["retry-after"], "3");
  r = Fetch(*port, "POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(handled.load(), 1);
}

// Issue 29: eight clients sending one header byte every 3 s took cpp-httplib's
// whole listener down. Here 200 of them are cut off at the header timeout
// (a total, not per byte), and a normal request is answered meanwhile.
TEST(HttpServerTest, SlowHeaderClientsDoNotBlockOthersAndAreCutOff) {
  HttpServerOptions o;
  o.max_connections_per_address = 1000;
  o.header_timeout = absl::Seconds(2);
  HttpServer server(o);
  AddEcho(&server);
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());

  constexpr int kSlow = 200;
  std::vector<int> slow;
  for (int i = 0; i < kSlow; ++i) {
    int fd = Connect(*port);
    ASSERT_GE(fd, 0);
    slow.push_back(fd);
  }
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    const std::string head = "GET /echo/slow HTTP/1.1\r\nHost: t\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaa\r\n";
    for (size_t i = 0; i < head.size() && !done; ++i) {
      for (int fd : slow) send(fd, head.data() + i, 1, MSG_NOSIGNAL);
      for (int w = 0; w < 30 && !done; ++w) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });

  const auto start = Clock::now();
  std::optional<Reply> r = Fetch(*port, Get("/echo/fast"));
  const auto took = Clock::now() - start;
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_LT(took, std::chrono::seconds(2)) << "a normal request waited behind slow clients";

  // Every slow client is closed, though it kept sending: 2 s after its
  // start (with slack for a busy machine).
  const auto cutoff_deadline = start + std::chrono::seconds(8);
  int closed = 0;
  for (int fd : slow) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(cutoff_deadline - Clock::now());
    closed += ClosedWithin(fd, std::max(left, std::chrono::milliseconds(1))) ? 1 : 0;
  }
  EXPECT_EQ(closed, kSlow);
  done = true;
  trickle.join();
  for (int fd : slow) close(fd);
  // And the server still answers.
  r = Fetch(*port, Get("/echo/after"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

// Issue 29: chunked bodies skipped the body limit (64 MiB read in full).
TEST(HttpServerTest, ChunkedBodyOverTheLimitIs413AndMemoryStaysBounded) {
  HttpServerOptions o;
  o.max_body_bytes = 64 << 10;
  std::atomic<int> handled{0};
  HttpServer server(o);
  server.Post("/upload", [&](const HttpRequest&) {
    ++handled;
    return Text("ok");
  });
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());

  const long rss_before = RssKiB();
  int fd = Connect(*port);
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(SendAll(fd, "POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"));
  std::atomic<size_t> sent{0};
  std::thread sender([&] {
    const std::string chunk = absl::StrCat("4000\r\n", std::string(0x4000, 'x'), "\r\n");
    while (sent < (64u << 20) && SendAll(fd, chunk)) sent += 0x4000;
  });
  std::optional<Reply> r = ReadReply(fd);
  shutdown(fd, SHUT_RDWR);
  sender.join();
  close(fd);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(handled.load(), 0);
  EXPECT_LT(sent.load(), 32u << 20) << "the server kept reading the refused body";
  EXPECT_LT(RssKiB() - rss_before, 32 * 1024);

  // A declared length over the limit: 413 without reading the body.
  r = Fetch(*port, "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\nabc");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(handled.load(), 0);

  // A head over max_header_bytes: 431.
  r = Fetch(*port, Get("/upload", absl::StrCat("X-Big: ", std::string(32 << 10, 'b'), "\r\n")));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 431);
}

TEST(HttpServerTest, ConnectionsPerNetworkAreCapped) {
  HttpServerOptions o;
  o.max_connections_per_address = 4;
  HttpServer server(o);
  AddEcho(&server);
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());

  std::vector<int> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(Connect(*port));
    ASSERT_GE(held.back(), 0);
  }
  // The fifth from the same address is refused (a 503, then closed).
  int fifth = Connect(*port);
  ASSERT_GE(fifth, 0);
  std::optional<Reply> refused = ReadReply(fifth);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503);
  EXPECT_TRUE(ClosedWithin(fifth, std::chrono::seconds(5)));
  close(fifth);
  // Another address of the same network (/24) is refused too: one host has
  // many addresses (an IPv6 /64 2^64).
  int neighbour = Connect(*port, "127.0.0.2");
  ASSERT_GE(neighbour, 0);
  refused = ReadReply(neighbour);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503);
  close(neighbour);
  // Another network is still served.
  std::optional<Reply> r = Fetch(*port, Get("/echo/other"), "127.0.1.2");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(absl::StrContains(r->body, "addr=127.0.1.2")) << r->body;
  // A held connection still works; closing one frees its slot.
  ASSERT_TRUE(SendAll(held[0], Get("/echo/held")));
  r = ReadReply(held[0]);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  for (int fd : held) close(fd);
  // The slots come back once the server has seen the closes.
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  do {
    r = Fetch(*port, Get("/echo/again"));
  } while ((!r || r->status != 200) && Clock::now() < deadline);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(HttpServerTest, ConnectionsInTotalAreCapped) {
  HttpServerOptions o;
  o.max_connections = 3;
  HttpServer server(o);
  AddEcho(&server);
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  std::vector<int> held = {Connect(*port, "127.0.0.1"), Connect(*port, "127.0.0.2"),
                           Connect(*port, "127.0.0.3")};
  // Served in turn: all three are accepted before the next one.
  ASSERT_TRUE(SendAll(held[2], "GET /echo/third HTTP/1.1\r\nHost: t\r\n\r\n"));
  ASSERT_TRUE(ReadReply(held[2]));
  std::optional<Reply> r = Fetch(*port, Get("/echo/fourth"), "127.0.0.4");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  close(held[0]);
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  do {
    r = Fetch(*port, Get("/echo/fourth"), "127.0.0.4");
  } while ((!r || r->status != 200) && Clock::now() < deadline);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  close(held[1]);
  close(held[2]);
}

TEST(HttpServerTest, AStalledBodyIsCutOffAtTheBodyTimeout) {
  HttpServerOptions o;
  o.body_timeout = absl::Milliseconds(300);
  std::atomic<int> handled{0};
  HttpServer server(o);
  server.Post("/upload", [&](const HttpRequest&) {
    ++handled;
    return Text("ok");
  });
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  int fd = Connect(*port);
  ASSERT_TRUE(SendAll(fd, "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nonly ten.."));
  EXPECT_TRUE(ClosedWithin(fd, std::chrono::seconds(5)));
  close(fd);
  EXPECT_EQ(handled.load(), 0);
}

TEST(HttpServerTest, IdleKeptAliveConnectionsAreClosed) {
  HttpServerOptions o;
  o.idle_timeout = absl::Milliseconds(300);
  HttpServer server(o);
  AddEcho(&server);
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  int fd = Connect(*port);
  ASSERT_TRUE(SendAll(fd, "GET /echo/a HTTP/1.1\r\nHost: t\r\n\r\n"));
  ASSERT_TRUE(ReadReply(fd));
  EXPECT_TRUE(ClosedWithin(fd, std::chrono::seconds(5)));
  close(fd);
}

std::string ProxiedAddress(const std::vector<std::string>& trusted, const std::string& headers) {
  HttpServerOptions o;
  o.trusted_proxies = trusted;
  std::string admitted;
  o.admit = [&](const HttpRequest& r) -> std::optional<HttpResponse> {
    admitted = r.remote_addr;
    return std::nullopt;
  };
  HttpServer server(o);
  AddEcho(&server);
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  if (!port.ok()) return port.status().ToString();
  std::optional<Reply> r = Fetch(*port, Get("/echo/p", headers));
  if (!r) return "no reply";
  std::string body = r->body;
  server.Stop();
  if (!absl::StrContains(body, "addr=" + admitted + " ")) return "admit saw " + admitted;
  return body.substr(body.find("addr="));
}

TEST(HttpServerTest, ForwardedAddressOnlyFromTrustedProxies) {
  const std::string xff = "X-Forwarded-For: 198.51.100.7, 203.0.113.9, 10.1.2.3\r\n";
  // Not trusted: the headers are ignored.
  EXPECT_EQ(ProxiedAddress({}, xff), "addr=127.0.0.1 proxy=0");
  EXPECT_EQ(ProxiedAddress({"10.0.0.0/8"}, xff), "addr=127.0.0.1 proxy=0");
  // The peer is trusted: the right-most address not itself a trusted proxy.
  EXPECT_EQ(ProxiedAddress({"127.0.0.1"}, xff), "addr=10.1.2.3 proxy=1");
  EXPECT_EQ(ProxiedAddress({"127.0.0.0/8", "10.0.0.0/8"}, xff), "addr=203.0.113.9 proxy=1");
  EXPECT_EQ(ProxiedAddress({"127.0.0.1"}, "Forwarded: for=\"[2001:db8::1]:4711\";proto=https\r\n"),
            "addr=2001:db8::1 proxy=1");
  EXPECT_EQ(ProxiedAddress({"127.0.0.1"}, "Forwarded: for=192.0.2.60, for=192.0.2.61:80\r\n"),
            "addr=192.0.2.61 proxy=1");
  // Through the proxy without a forwarded address: the proxy's own.
  EXPECT_EQ(ProxiedAddress({"127.0.0.1"}, ""), "addr=127.0.0.1 proxy=1");
  // Garbage in the right-most place: not believed.
  EXPECT_EQ(ProxiedAddress({"127.0.0.1"}, "X-Forwarded-For: 1.2.3.4, junk\r\n"),
            "addr=127.0.0.1 proxy=1");

  HttpServerOptions o;
  o.trusted_proxies = {"not-an-address"};
  HttpServer bad(o);
  EXPECT_EQ(bad.Start("127.0.0.1", 0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(HttpServerTest, BadTlsFilesAreRefusedAtStart) {
  HttpServerOptions o;
  o.tls_cert_file = "/nonexistent/cert.pem";
  o.tls_key_file = "/nonexistent/key.pem";
  HttpServer server(o);
  EXPECT_TRUE(server.tls());
  EXPECT_EQ(server.Start("127.0.0.1", 0).status().code(), absl::StatusCode::kFailedPrecondition);
}

// Hands the stream handler's sinks to the test.
struct Sinks {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::shared_ptr<EventSink>> sinks;
  std::vector<HttpRequest> requests;

  void Add(const HttpRequest& r, std::shared_ptr<EventSink> s) {
    std::lock_guard<std::mutex> lock(mu);
    sinks.push_back(std::move(s));
    requests.push_back(r);
    cv.notify_all();
  }
  std::shared_ptr<EventSink> Wait(size_t i) {
    std::unique_lock<std::mutex> lock(mu);
    if (!cv.wait_for(lock, std::chrono::seconds(10), [&] { return sinks.size() > i; })) return nullptr;
    return sinks[i];
  }
};

// Reads from fd until `text` has been seen (or the timeout of the socket).
bool ReadUntil(int fd, std::string* seen, const std::string& text) {
  char buf[4096];
  while (!absl::StrContains(*seen, text)) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    seen->append(buf, static_cast<size_t>(n));
  }
  return true;
}

// Polls a condition that the server's threads make true (bounded).
template <class F>
bool Eventually(F f, std::chrono::seconds within = std::chrono::seconds(10)) {
  const auto deadline = Clock::now() + within;
  while (Clock::now() < deadline) {
    if (f()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return f();
}

// A route with its own, larger body limit (an upload): bodies up to it reach
// its handler, whatever the server's max_body_bytes; over it, 413 before the
// body is read (Content-Length) or once the running count passes it
// (chunked); other routes keep the server's limit; at most
// max_large_bodies such bodies are read at once (beyond: 503).
TEST(HttpServerTest, ARouteTakesLargerBodiesUpToItsOwnLimitAndFewAtOnce) {
  HttpServerOptions o;
  o.max_body_bytes = 64 << 10;
  o.max_large_bodies = 1;
  std::atomic<int> handled{0};
  HttpServer server(o);
  server.Post("/small", [&](const HttpRequest& req) {
    ++handled;
    return Text(absl::StrCat(req.body.size()));
  });
  server.Post("/big", 1 << 20, [&](const HttpRequest& req) {
    ++handled;
    return Text(absl::StrCat(req.body.size()));
  });
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  auto post = [](const std::string& path, size_t n) {
    return absl::StrCat("POST ", path, " HTTP/1.1\r\nHost: t\r\nContent-Length: ", n,
                        "\r\nConnection: close\r\n\r\n", std::string(n, 'x'));
  };
  // 900 KiB: past the server's 64 KiB, within the route's 1 MiB.
  std::optional<Reply> r = Fetch(*port, post("/big", 900 << 10));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, absl::StrCat(900 << 10));
  // The same body to a route without its own limit: 413.
  r = Fetch(*port, absl::StrCat("POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: ", 900 << 10,
                                "\r\n\r\nabc"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  // Over the route's limit, declared: 413 before the body.
  r = Fetch(*port, absl::StrCat("POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: ",
                                (1 << 20) + 1, "\r\n\r\nabc"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(handled.load(), 1);
  // Over it, chunked: 413 once the count passes it, the rest never read.
  {
    int fd = Connect(*port);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(SendAll(fd, "POST /big HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"));
    std::atomic<size_t> sent{0};
    std::thread sender([&] {
      const std::string chunk = absl::StrCat("4000\r\n", std::string(0x4000, 'x'), "\r\n");
      while (sent < (64u << 20) && SendAll(fd, chunk)) sent += 0x4000;
    });
    r = ReadReply(fd);
    shutdown(fd, SHUT_RDWR);
    sender.join();
    close(fd);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 413);
    EXPECT_LT(sent.load(), 32u << 20) << "the server kept reading the refused body";
  }
  EXPECT_EQ(handled.load(), 1);
  // One large body being read holds the one slot (its 100 Continue says it
  // was taken): a second gets 503 at once; a small request is served
  // meanwhile; once the first ends, a large one is taken again.
  int slow = Connect(*port);
  ASSERT_GE(slow, 0);
  ASSERT_TRUE(SendAll(slow, absl::StrCat("POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: ",
                                         512 << 10, "\r\nExpect: 100-continue\r\n",
                                         "Connection: close\r\n\r\n")));
  std::optional<Reply> cont = ReadReply(slow, /*head_only=*/true);
  ASSERT_TRUE(cont);
  ASSERT_EQ(cont->status, 100);
  ASSERT_TRUE(SendAll(slow, std::string(100 << 10, 'x')));
  r = Fetch(*port, post("/big", 200 << 10));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  r = Fetch(*port, post("/small", 10));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  ASSERT_TRUE(SendAll(slow, std::string((512 - 100) << 10, 'x')));
  r = ReadReply(slow);
  close(slow);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, absl::StrCat(512 << 10));
  ASSERT_TRUE(Eventually([&] {
    r = Fetch(*port, post("/big", 200 << 10));
    return r && r->status == 200;
  }));
}

TEST(HttpServerTest, EventStreamDeliversAndNoticesTheClientLeaving) {
  HttpServerOptions o;
  o.stream_heartbeat = absl::Milliseconds(200);
  Sinks sinks;  // outlives the server, whose handlers use it
  HttpServer server(o);
  server.GetStream("/events/(\\w+)", [&](const HttpRequest& r, std::shared_ptr<EventSink> s) {
    sinks.Add(r, std::move(s));
  });
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());

  int fd = Connect(*port);
  ASSERT_TRUE(SendAll(fd, "GET /events/m1 HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n\r\n"));
  std::optional<Reply> head = ReadReply(fd, true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->headers["content-type"], "text/event-stream");
  EXPECT_EQ(head->headers["cache-control"], "no-cache");
  EXPECT_EQ(head->headers["x-content-type-options"], "nosniff");
  std::shared_ptr<EventSink> sink = sinks.Wait(0);
  ASSERT_TRUE(sink);
  EXPECT_EQ(sinks.requests[0].matches[1], "m1");
  EXPECT_TRUE(sink->Send("move", "one\ntwo"));
  EXPECT_TRUE(sink->Send("", "plain"));
  std::string seen = head->body;
  ASSERT_TRUE(ReadUntil(fd, &seen, "event: move\ndata: one\ndata: two\n\ndata: plain\n\n")) << seen;
  ASSERT_TRUE(ReadUntil(fd, &seen, ":\n\n")) << "no heartbeat";
  EXPECT_FALSE(sink->closed());

  close(fd);
  EXPECT_TRUE(Eventually([&] { return !sink->Send("move", "anyone?"); }));
  EXPECT_TRUE(sink->closed());

  // Close() from the server's side ends the stream after what is queued.
  fd = Connect(*port);
  ASSERT_TRUE(SendAll(fd, Get("/events/m2")));
  sink = sinks.Wait(1);
  ASSERT_TRUE(sink);
  EXPECT_TRUE(sink->Send("last", "words"));
  sink->Close();
  EXPECT_FALSE(sink->Send("late", "x"));
  seen.clear();
  ASSERT_TRUE(ReadUntil(fd, &seen, "event: last\ndata: words\n\n")) << seen;
  EXPECT_TRUE(ClosedWithin(fd, std::chrono::seconds(5)));
  close(fd);
}

TEST(HttpServerTest, EventStreamDropsASlowReader) {
  HttpServerOptions o;
  o.max_stream_queue_bytes = 256 << 10;
  Sinks sinks;  // outlives the server, whose handlers use it
  HttpServer server(o);
  server.GetStream("/events", [&](const HttpRequest& r, std::shared_ptr<EventSink> s) {
    sinks.Add(r, std::move(s));
  });
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int small = 4096;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(*port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
  ASSERT_TRUE(SendAll(fd, Get("/events")));
  std::shared_ptr<EventSink> sink = sinks.Wait(0);
  ASSERT_TRUE(sink);
  // The client reads nothing: the queue grows until the sink gives up.
  const std::string data(16 << 10, 'd');
  size_t queued = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline && sink->Send("big", data)) {
    queued += data.size();
    if (queued > (256u << 20)) break;
  }
  EXPECT_TRUE(sink->closed()) << queued << " bytes queued and still open";
  EXPECT_TRUE(ClosedWithin(fd, std::chrono::seconds(10)));
  close(fd);
}

// Per client network (/24 IPv4, /64 IPv6; issue 44): another address of the
// same /24 gets no more streams, one of another /24 does.
TEST(HttpServerTest, EventStreamsAreCappedPerNetwork) {
  HttpServerOptions o;
  o.max_streams_per_address = 2;
  Sinks sinks;  // outlives the server, whose handlers use it
  HttpServer server(o);
  server.GetStream("/events", [&](const HttpRequest& r, std::shared_ptr<EventSink> s) {
    sinks.Add(r, std::move(s));
  });
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  std::vector<int> open;
  for (int i = 0; i < 2; ++i) {
    open.push_back(Connect(*port));
    ASSERT_TRUE(SendAll(open.back(), Get("/events")));
    std::optional<Reply> head = ReadReply(open.back(), true);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->status, 200);
  }
  std::optional<Reply> third = Fetch(*port, Get("/events"));
  ASSERT_TRUE(third);
  EXPECT_EQ(third->status, 503);
  int neighbour = Connect(*port, "127.0.0.3");  // the same /24
  ASSERT_TRUE(SendAll(neighbour, Get("/events")));
  std::optional<Reply> refused = ReadReply(neighbour, false);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503);
  close(neighbour);
  int other = Connect(*port, "127.0.1.3");  // another /24
  ASSERT_TRUE(SendAll(other, Get("/events")));
  std::optional<Reply> head = ReadReply(other, true);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  close(other);
  for (int fd : open) close(fd);
}

TEST(HttpServerTest, StopClosesOpenConnectionsPromptly) {
  Sinks sinks;
  auto server = std::make_unique<HttpServer>();
  AddEcho(server.get());
  server->GetStream("/events", [&](const HttpRequest& r, std::shared_ptr<EventSink> s) {
    sinks.Add(r, std::move(s));
  });
  absl::StatusOr<int> port = server->Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  std::vector<int> fds;
  for (int i = 0; i < 30; ++i) fds.push_back(Connect(*port));  // idle
  for (int i = 0; i < 5; ++i) {                                // half a head
    fds.push_back(Connect(*port));
    SendAll(fds.back(), "GET /echo/x HTTP/1.1\r\n");
  }
  int stream = Connect(*port);
  ASSERT_TRUE(SendAll(stream, Get("/events")));
  std::shared_ptr<EventSink> sink = sinks.Wait(0);
  ASSERT_TRUE(sink);
  fds.push_back(stream);

  const auto start = Clock::now();
  server->Stop();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
  EXPECT_FALSE(sink->Send("after", "stop"));
  for (int fd : fds) {
    EXPECT_TRUE(ClosedWithin(fd, std::chrono::seconds(5)));
    close(fd);
  }
  server.reset();  // the sink outlives the server safely
  EXPECT_FALSE(sink->Send("after", "destruction"));
  EXPECT_TRUE(sink->closed());
}

TEST(HttpServerTest, ManyOpenStreamsLeaveTheServerResponsive) {
  HttpServerOptions o;
  o.max_connections_per_address = 1000;
  o.max_streams_per_address = 1000;
  Sinks sinks;  // outlives the server, whose handlers use it
  HttpServer server(o);
  AddEcho(&server);
  server.GetStream("/events", [&](const HttpRequest& r, std::shared_ptr<EventSink> s) {
    sinks.Add(r, std::move(s));
  });
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  constexpr int kStreams = 300;
  std::vector<int> fds;
  for (int i = 0; i < kStreams; ++i) {
    fds.push_back(Connect(*port));
    ASSERT_TRUE(SendAll(fds.back(), Get("/events")));
  }
  ASSERT_TRUE(sinks.Wait(kStreams - 1));
  const auto start = Clock::now();
  std::optional<Reply> r = Fetch(*port, Get("/echo/busy"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
  // One event to every stream arrives.
  for (auto& sink : sinks.sinks) EXPECT_TRUE(sink->Send("tick", "1"));
  for (int fd : fds) {
    std::string seen;
    EXPECT_TRUE(ReadUntil(fd, &seen, "event: tick\ndata: 1\n\n"));
    close(fd);
  }
}

// A self-signed certificate for localhost from the openssl command (skipped
// without it).
bool MakeCertificate(const std::string& dir) {
  const std::string cmd = absl::StrCat(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
      "-subj /CN=localhost -keyout ", dir, "/key.pem -out ", dir, "/cert.pem >/dev/null 2>&1");
  return std::system(cmd.c_str()) == 0;
}

TEST(HttpServerTest, TlsServesAndCutsOffSilentHandshakes) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / absl::StrCat("http_server_test_", getpid())).string();
  std::filesystem::create_directories(dir);
  if (!MakeCertificate(dir)) {
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << "no openssl command to make a certificate";
  }
  HttpServerOptions o;
  o.tls_cert_file = dir + "/cert.pem";
  o.tls_key_file = dir + "/key.pem";
  o.handshake_timeout = absl::Milliseconds(300);
  HttpServer server(o);
  AddEcho(&server);
  absl::StatusOr<int> port = server.Start("127.0.0.1", 0);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(port.ok()) << port.status();
  ASSERT_TRUE(server.tls());

  // A client that never starts the handshake is closed.
  int silent = Connect(*port);
  EXPECT_TRUE(ClosedWithin(silent, std::chrono::seconds(5)));
  close(silent);

  // A real TLS client is answered, with the security headers.
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  ASSERT_NE(ctx, nullptr);
  int fd = Connect(*port);
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  ASSERT_EQ(SSL_connect(ssl), 1);
  const std::string request = Get("/echo/tls");
  ASSERT_EQ(SSL_write(ssl, request.data(), static_cast<int>(request.size())),
            static_cast<int>(request.size()));
  std::string response;
  char buf[4096];
  int n;
  while ((n = SSL_read(ssl, buf, sizeof buf)) > 0) response.append(buf, static_cast<size_t>(n));
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  close(fd);
  EXPECT_TRUE(absl::StartsWith(response, "HTTP/1.1 200")) << response;
  EXPECT_TRUE(absl::StrContains(response, "X-Content-Type-Options: nosniff")) << response;
  EXPECT_TRUE(absl::StrContains(response, "GET /echo/tls m=tls")) << response;
}

}  // namespace
}  // namespace tarock::metrics
