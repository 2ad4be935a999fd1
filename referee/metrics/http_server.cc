#include "referee/metrics/http_server.h"

#include <httplib.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "referee/metrics/exposition.h"

namespace tarock::metrics {

struct HttpServer::Impl {
  std::unique_ptr<httplib::Server> owned;
  httplib::Server& server;
  explicit Impl(std::unique_ptr<httplib::Server> s) : owned(std::move(s)), server(*owned) {}
};

namespace {

// Everything but the route's matches and the body (which the admission hook
// runs before).
HttpRequest RequestOf(const httplib::Request& req) {
  HttpRequest r;
  r.method = req.method;
  r.path = req.path;
  for (const auto& [k, v] : req.params) r.query[k] = v;
  r.remote_addr = req.remote_addr;
  return r;
}

void Respond(const HttpResponse& out, httplib::Response& res) {
  res.status = out.status;
  for (const auto& [name, value] : out.headers) res.set_header(name.c_str(), value);
  res.set_content(out.body, out.content_type.c_str());
}

httplib::Server::Handler Wrap(HttpServer::Handler handler) {
  return [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    HttpRequest r = RequestOf(req);
    for (size_t i = 0; i < req.matches.size(); ++i) r.matches.push_back(req.matches[i].str());
    r.body = req.body;
    Respond(handler(r), res);
  };
}

}  // namespace

std::pair<std::string, int> SplitHostPort(const std::string& address) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return {address, 0};
  return {address.substr(0, colon), std::atoi(address.c_str() + colon + 1)};
}

namespace {

std::unique_ptr<httplib::Server> MakeServer(const HttpServerOptions& o) {
  if (o.tls_cert_file.empty() && o.tls_key_file.empty()) return std::make_unique<httplib::Server>();
  return std::make_unique<httplib::SSLServer>(o.tls_cert_file.c_str(), o.tls_key_file.c_str());
}

}  // namespace

HttpServer::HttpServer(HttpServerOptions options)
    : impl_(std::make_unique<Impl>(MakeServer(options))),
      tls_(!options.tls_cert_file.empty() || !options.tls_key_file.empty()) {
  // cpp-httplib writes the headers and the body separately: without NODELAY,
  // Nagle holds the body until the client's delayed ACK (about 40 ms a request).
  impl_->server.set_tcp_nodelay(true);
  impl_->server.set_payload_max_length(options.max_body_bytes);
  if (options.admit) {
    impl_->server.set_pre_routing_handler(
        [admit = std::move(options.admit)](const httplib::Request& req, httplib::Response& res) {
          std::optional<HttpResponse> refused = admit(RequestOf(req));
          if (!refused) return httplib::Server::HandlerResponse::Unhandled;
          Respond(*refused, res);
          return httplib::Server::HandlerResponse::Handled;
        });
  }
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Get(const std::string& pattern, Handler handler) {
  impl_->server.Get(pattern, Wrap(std::move(handler)));
}

void HttpServer::Post(const std::string& pattern, Handler handler) {
  impl_->server.Post(pattern, Wrap(std::move(handler)));
}

void HttpServer::ServeMetrics(std::vector<const prometheus::Collectable*> collectables) {
  collectables.push_back(&process_);
  Get("/metrics", [collectables = std::move(collectables)](const HttpRequest&) {
    HttpResponse r;
    r.content_type = kMetricsContentType;
    r.body = SerializeMetrics(collectables);
    return r;
  });
}

void HttpServer::SetNotFound(Handler handler) {
  // cpp-httplib calls the error handler for every response of status >= 400;
  // only an empty one (no route matched) gets the page.
  impl_->server.set_error_handler(httplib::Server::HandlerWithResponse(
      [wrapped = Wrap(std::move(handler))](const httplib::Request& req, httplib::Response& res) {
        if (res.status != 404 || !res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        wrapped(req, res);
        return httplib::Server::HandlerResponse::Handled;
      }));
}

absl::StatusOr<int> HttpServer::Start(const std::string& host, int port) {
  if (!impl_->server.is_valid())
    return absl::FailedPreconditionError(
        "cannot load the TLS certificate and key for HTTPS (PEM files, the key matching the "
        "certificate)");
  int bound = port == 0 ? impl_->server.bind_to_any_port(host)
                        : (impl_->server.bind_to_port(host, port) ? port : -1);
  if (bound <= 0) return absl::UnavailableError(absl::StrCat("cannot listen on ", host, ":", port));
  thread_ = std::thread([this] { impl_->server.listen_after_bind(); });
  return bound;
}

void HttpServer::Stop() {
  impl_->server.stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace tarock::metrics
