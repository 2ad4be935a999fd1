// A small HTTP/1.1 server for Prometheus /metrics, web pages and JSON APIs, on cpp-httplib
// (Debian's libcpp-httplib-dev) without exposing it in this header. Handlers are
// plain functions of a request; the server runs them on its own thread pool.
//
// Thread-safety: register handlers before Start(); Start/Stop from one thread.
// Handlers run concurrently and must be thread-safe themselves.

#ifndef TAROCK_REFEREE_METRICS_HTTP_SERVER_H_
#define TAROCK_REFEREE_METRICS_HTTP_SERVER_H_

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/collectable.h"
#include "referee/metrics/process_collector.h"

namespace tarock::metrics {

struct HttpRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> query;  // ?a=b&c=d
  std::vector<std::string> matches;          // regex groups of the route, [0] = whole path
  std::string body;
  std::string remote_addr;  // the client's address, numeric, without the port
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
};

// "HOST:PORT" -> {HOST, PORT}; the port is 0 when missing or not a number.
std::pair<std::string, int> SplitHostPort(const std::string& address);

struct HttpServerOptions {
  // Both set: HTTPS with this PEM certificate chain and key. Empty: HTTP.
  std::string tls_cert_file;
  std::string tls_key_file;
  // Request bodies larger than this are refused with 413 before any handler.
  size_t max_body_bytes = 1 << 20;
  // Asked for every request before routing (path, query and remote_addr are
  // set, matches and body are not); a response answers the request instead
  // of its route (a 429 with Retry-After, say). Null: every request routed.
  std::function<std::optional<HttpResponse>(const HttpRequest&)> admit;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  explicit HttpServer(HttpServerOptions options = {});
  ~HttpServer();  // stops the server

  // Routes are regular expressions over the whole path, e.g. "/api/matches/(\\w+)".
  void Get(const std::string& pattern, Handler handler);
  void Post(const std::string& pattern, Handler handler);
  // Serves GET /metrics in the Prometheus text format (exposition.h): the
  // families of `collectables` (null entries skipped; each must outlive the
  // server), then this process's process_* metrics (ProcessCollector).
  void ServeMetrics(std::vector<const prometheus::Collectable*> collectables);
  // Answers requests no route matched (instead of an empty 404); the handler
  // sets its own status.
  void SetNotFound(Handler handler);

  // Binds HOST:PORT (port 0 picks a free one) and serves on a background thread.
  // Returns the bound port. FAILED_PRECONDITION when the TLS certificate or
  // key of the options cannot be loaded.
  absl::StatusOr<int> Start(const std::string& host, int port);
  void Stop();
  bool tls() const { return tls_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool tls_ = false;
  ProcessCollector process_;
  std::thread thread_;
};

}  // namespace tarock::metrics

#endif  // TAROCK_REFEREE_METRICS_HTTP_SERVER_H_
