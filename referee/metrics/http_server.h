// A small HTTP/1.1 server for Prometheus /metrics, web pages, JSON APIs and
// server-sent event streams, on Boost.Beast/Asio (Debian's libboost-dev) and
// OpenSSL, without exposing them in this header.
//
// Built to stay up under hostile clients (docs/security.md, "HTTP server"):
// a few I/O threads run every connection asynchronously, so idle, slow and
// streaming connections cost a socket and some memory, not a thread. Every
// connection has deadlines (TLS handshake, the whole request head, the body,
// the idle wait between requests, each write); connections are capped in
// total and per client address, request heads and bodies by size (for every
// transfer encoding: a chunked body over the limit is refused with 413 just
// like a Content-Length one). Route handlers run on a separate small pool of
// handler threads, so a slow handler delays only the requests queued behind
// it, never the I/O, the timeouts or the admission of other connections. The
// admission hook (HttpServerOptions::admit) runs on an I/O thread and must be
// fast. Every response carries security headers (CSP, nosniff, frame
// denial, Referrer-Policy) unless its handler set its own.
//
// Thread-safety: register routes (Get, Post, GetStream, ServeMetrics,
// SetNotFound) before Start(); Start/Stop from one thread. Handlers run
// concurrently on the handler threads and must be thread-safe themselves.
// EventSink is thread-safe.

#ifndef TAROCK_REFEREE_METRICS_HTTP_SERVER_H_
#define TAROCK_REFEREE_METRICS_HTTP_SERVER_H_

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "prometheus/collectable.h"
#include "referee/metrics/process_collector.h"

namespace tarock::metrics {

struct HttpRequest {
  std::string method;                        // "GET", "HEAD" (routed as GET), "POST", ...
  std::string path;                          // percent-decoded, without the query
  std::map<std::string, std::string> query;  // ?a=b&c=d (decoded; the last of a repeated key)
  std::vector<std::string> matches;          // regex groups of the route, [0] = whole path
  // Request headers by lower-case name; repeated headers joined with ", ".
  std::map<std::string, std::string> headers;
  std::string body;
  // The client's address, numeric, without the port: the TCP peer, or when
  // the peer is one of HttpServerOptions::trusted_proxies, the address it
  // forwarded (X-Forwarded-For, else Forwarded: for=).
  std::string remote_addr;
  // The TCP peer is a trusted proxy (whether or not it forwarded an address):
  // exemptions by address (loopback, say) should not apply.
  bool via_proxy = false;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
};

// "HOST:PORT" -> {HOST, PORT}; the port is 0 when missing or not a number.
std::pair<std::string, int> SplitHostPort(const std::string& address);

// The Content-Security-Policy every response gets unless its handler sets one:
// scripts, styles, images and fetches from this origin only, no framing. The
// arena's pages have no inline scripts or style attributes (styles set from
// script through element.style are allowed).
inline constexpr char kDefaultContentSecurityPolicy[] =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'";

struct HttpServerOptions {
  // Both set: HTTPS with this PEM certificate chain and key. Empty: HTTP.
  std::string tls_cert_file;
  std::string tls_key_file;
  // Request bodies larger than this are refused with 413 before any handler
  // (Content-Length and chunked alike; the connection is then closed).
  size_t max_body_bytes = 1 << 20;
  // Bodies over max_body_bytes that a route allows (Post with its own
  // limit, e.g. an upload): at most this many read or handled at once in
  // total (beyond: 503, one line, before the body is read), so large bodies
  // hold at most max_large_bodies times their routes' limits.
  int max_large_bodies = 4;
  // Request line and headers larger than this: 431, connection closed.
  size_t max_header_bytes = 16 << 10;
  // Asked for every request before routing and before its body is read
  // (method, path, query, headers, remote_addr and via_proxy are set, matches
  // and body are not); a response answers the request instead of its route
  // (a 429 with Retry-After, say). Runs on an I/O thread: keep it fast. Null:
  // every request routed.
  std::function<std::optional<HttpResponse>(const HttpRequest&)> admit;

  // Threads running the connections' I/O (asynchronous, any number of
  // connections each).
  int io_threads = 2;
  // Threads running route handlers (as many as cpp-httplib's pool had);
  // requests beyond them wait in a queue, their connections' I/O unaffected.
  int handler_threads = 8;

  // Deadlines. The TLS handshake; the whole request head from its first
  // byte (a total, not per byte: a client trickling bytes is cut off); the
  // body after the head; the wait for the next request on a kept-alive
  // connection; each response write (and, on event streams, each flush).
  // A connection missing one is closed.
  absl::Duration handshake_timeout = absl::Seconds(10);
  absl::Duration header_timeout = absl::Seconds(10);
  absl::Duration body_timeout = absl::Seconds(30);
  absl::Duration idle_timeout = absl::Seconds(30);
  absl::Duration write_timeout = absl::Seconds(30);

  // Open connections in total and per client network (the TCP peer's /24
  // IPv4 or /64 IPv6, net::PrefixKey; trusted proxies are not limited per
  // network). Connections beyond are closed right after accept (plain HTTP
  // gets a 503 first).
  int max_connections = 1024;
  int max_connections_per_address = 64;  // per network, as the streams'

  // Addresses and CIDR prefixes ("127.0.0.1", "10.0.0.0/8", "fd00::/8") of
  // reverse proxies whose X-Forwarded-For / Forwarded headers are believed:
  // remote_addr is then the right-most address in them that is not itself a
  // trusted proxy. From any other peer those headers are ignored. Empty:
  // nothing is trusted. Start() refuses a malformed entry (INVALID_ARGUMENT).
  std::vector<std::string> trusted_proxies;

  // Security headers on every response that does not set its own:
  // X-Content-Type-Options: nosniff, X-Frame-Options: DENY,
  // Referrer-Policy: no-referrer and this Content-Security-Policy ("" for
  // none). false: none of them.
  bool security_headers = true;
  std::string content_security_policy = kDefaultContentSecurityPolicy;

  // Server-sent event streams (GetStream): open streams in total and per
  // client network (remote_addr's /24 IPv4 or /64 IPv6, net::PrefixKey;
  // beyond them: 503); a comment line this
  // often so proxies and clients see the stream alive; a client that lets
  // more than this many bytes queue up unsent is dropped.
  int max_streams = 512;
  int max_streams_per_address = 16;
  absl::Duration stream_heartbeat = absl::Seconds(15);
  size_t max_stream_queue_bytes = 1 << 20;
};

// One open server-sent event stream (text/event-stream) to one client.
// Thread-safe; keep the shared_ptr as long as events may be sent.
class EventSink {
 public:
  virtual ~EventSink() = default;
  // Queues one event ("event: EVENT" unless empty, a "data:" line per line
  // of `data`). false, and nothing queued, once the stream is closed: the
  // client went away, was too slow (its queue over max_stream_queue_bytes),
  // Close() was called or the server stopped.
  virtual bool Send(std::string event, std::string data) = 0;
  // Ends the stream after what is queued has been written.
  virtual void Close() = 0;
  virtual bool closed() const = 0;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  // Called once per stream (on a handler thread) with the request and the
  // stream's sink; it may return at once and send from anywhere later.
  using StreamHandler = std::function<void(const HttpRequest&, std::shared_ptr<EventSink>)>;

  explicit HttpServer(HttpServerOptions options = {});
  ~HttpServer();  // stops the server

  // Routes are regular expressions over the whole path, e.g. "/api/matches/(\\w+)".
  // GET routes answer HEAD too (without the body).
  void Get(const std::string& pattern, Handler handler);
  void Post(const std::string& pattern, Handler handler);
  // A POST route whose bodies may be up to `max_body_bytes` (above the
  // server's max_body_bytes; such bodies count against max_large_bodies).
  // Over it: 413 before the body is read (Content-Length) or as soon as the
  // running count passes it (chunked).
  void Post(const std::string& pattern, size_t max_body_bytes, Handler handler);
  // A GET route answered with a server-sent event stream (200,
  // text/event-stream, no caching), or 503 when max_streams or
  // max_streams_per_address are reached.
  void GetStream(const std::string& pattern, StreamHandler handler);
  // Serves GET /metrics in the Prometheus text format (exposition.h): the
  // families of `collectables` (null entries skipped; each must outlive the
  // server), then this process's process_* metrics (ProcessCollector).
  void ServeMetrics(std::vector<const prometheus::Collectable*> collectables);
  // Answers requests no route matched (instead of an empty 404); the handler
  // sets its own status.
  void SetNotFound(Handler handler);

  // Binds HOST:PORT (port 0 picks a free one) and serves on background
  // threads. Returns the bound port. FAILED_PRECONDITION when the TLS
  // certificate or key of the options cannot be loaded; INVALID_ARGUMENT for
  // a malformed trusted proxy; UNAVAILABLE when it cannot listen.
  absl::StatusOr<int> Start(const std::string& host, int port);
  // Closes the listener and every connection and stream, waits for running
  // handlers to return. Idempotent.
  void Stop();
  bool tls() const { return tls_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool tls_ = false;
  ProcessCollector process_;
};

}  // namespace tarock::metrics

#endif  // TAROCK_REFEREE_METRICS_HTTP_SERVER_H_
