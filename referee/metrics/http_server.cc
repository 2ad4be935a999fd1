// beast::string_view is std::string_view (before any Boost header).
#define BOOST_BEAST_USE_STD_STRING_VIEW 1

#include "referee/metrics/http_server.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <regex>
#include <type_traits>
#include <thread>
#include <unordered_map>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "referee/net/rate_limiter.h"
#include "referee/metrics/exposition.h"
#include "referee/net/endpoint_policy.h"

namespace tarock::metrics {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

std::pair<std::string, int> SplitHostPort(const std::string& address) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return {address, 0};
  return {address.substr(0, colon), std::atoi(address.c_str() + colon + 1)};
}

namespace {

// Beast's views are std::string_view; Debian's Abseil has its own.
absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::chrono::steady_clock::duration Chrono(absl::Duration d) {
  return absl::ToChronoNanoseconds(std::max(d, absl::Milliseconds(1)));
}

// %XX decoding (cpp-httplib's, which the routes were written against):
// malformed escapes stay as written; '+' is a space in queries only.
std::string DecodeUrl(absl::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      auto hex = [](char h) { return h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10; };
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
      continue;
    }
    out.push_back(plus_is_space && c == '+' ? ' ' : c);
  }
  return out;
}

void ParseQuery(absl::string_view text, std::map<std::string, std::string>* query) {
  for (absl::string_view piece : absl::StrSplit(text, absl::ByAnyChar("&"), absl::SkipEmpty())) {
    size_t eq = piece.find('=');
    std::string key = DecodeUrl(piece.substr(0, eq), true);
    std::string value = eq == absl::string_view::npos ? "" : DecodeUrl(piece.substr(eq + 1), true);
    (*query)[std::move(key)] = std::move(value);
  }
}

// "1.2.3.4", "1.2.3.4:80", "[::1]:80", "\"[::1]:80\"", "::1" -> the numeric
// address, or "" when it is none.
std::string ForwardedAddress(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
    text = text.substr(1, text.size() - 2);
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == absl::string_view::npos) return "";
    text = text.substr(1, close - 1);
  } else if (std::count(text.begin(), text.end(), ':') == 1) {
    text = text.substr(0, text.find(':'));  // IPv4 with a port
  }
  boost::system::error_code ec;
  asio::ip::address a = asio::ip::make_address(std::string(text), ec);
  if (ec) return "";
  if (a.is_v6() && a.to_v6().is_v4_mapped())
    return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6()).to_string();
  return a.to_string();
}

// A parse error of the request (400), not a closed or timed-out connection.
bool Malformed(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_target).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message;
}

std::string PeerAddress(const tcp::endpoint& peer) {
  asio::ip::address a = peer.address();
  if (a.is_v6() && a.to_v6().is_v4_mapped())
    return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6()).to_string();
  return a.to_string();
}

constexpr size_t kMaxTargetBytes = 8192;

HttpResponse PlainText(int status, absl::string_view text) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = absl::StrCat(text, "\n");
  return r;
}

struct Route {
  std::string method;  // GET or POST
  std::regex pattern;
  HttpServer::Handler handler;          // or
  HttpServer::StreamHandler streamer;   // (GET only)
  size_t max_body_bytes = 0;            // 0: the server's
};

class SessionBase {
 public:
  virtual ~SessionBase() = default;
  virtual void CloseAsync() = 0;
};

// What the sessions share with the server: options, routes and the counts
// behind the limits. Held by every session, so it outlives them all.
struct Core {
  HttpServerOptions options;
  std::vector<Route> routes;
  HttpServer::Handler not_found;
  std::vector<tarock::net::AddressRange> trusted;

  std::mutex mu;
  std::condition_variable sessions_gone;
  int connections ABSL_GUARDED_BY(mu) = 0;
  std::unordered_map<std::string, int> connections_by_address ABSL_GUARDED_BY(mu);  // by network
  int streams ABSL_GUARDED_BY(mu) = 0;
  std::atomic<int> large_bodies{0};  // bodies over options.max_body_bytes
  size_t max_route_body = 0;          // the largest Route::max_body_bytes
  std::unordered_map<std::string, int> streams_by_address ABSL_GUARDED_BY(mu);
  std::unordered_map<SessionBase*, std::weak_ptr<SessionBase>> sessions ABSL_GUARDED_BY(mu);
  bool stopping ABSL_GUARDED_BY(mu) = false;

  bool Trusted(const std::string& address) const {
    for (const tarock::net::AddressRange& r : trusted)
      if (tarock::net::RangeContains(r, address)) return true;
    return false;
  }

  // The client behind a trusted peer: the right-most forwarded address that
  // is not a trusted proxy itself (the proxies append what they saw).
  std::string ForwardedClient(const std::string& peer, const http::fields& fields) const {
    std::vector<std::string> hops;
    bool forwarded = false;
    for (auto [it, end] = fields.equal_range("X-Forwarded-For"); it != end; ++it) {
      forwarded = true;
      for (absl::string_view hop : absl::StrSplit(A(it->value()), ','))
        hops.push_back(std::string(hop));
    }
    if (!forwarded) {
      for (auto [it, end] = fields.equal_range("Forwarded"); it != end; ++it) {
        for (absl::string_view element : absl::StrSplit(A(it->value()), ',')) {
          for (absl::string_view pair : absl::StrSplit(element, ';')) {
            pair = absl::StripAsciiWhitespace(pair);
            if (pair.size() > 4 && absl::EqualsIgnoreCase(pair.substr(0, 4), "for="))
              hops.push_back(std::string(pair.substr(4)));
          }
        }
      }
    }
    std::string client = peer;
    for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
      std::string a = ForwardedAddress(*it);
      if (a.empty()) break;  // garbage: keep the last hop a proxy vouched for
      client = a;
      if (!Trusted(a)) break;
    }
    return client;
  }

  void AddHeaders(http::fields& fields) const {
    if (!options.security_headers) return;
    auto add = [&](std::string_view name, const std::string& value) {
      if (!value.empty() && fields.find(name) == fields.end()) fields.set(name, value);
    };
    add("X-Content-Type-Options", "nosniff");
    add("X-Frame-Options", "DENY");
    add("Referrer-Policy", "no-referrer");
    add("Content-Security-Policy", options.content_security_policy);
  }
};

// One server-sent event stream's queue; the session writes what it holds.
class Sink : public EventSink {
 public:
  Sink(size_t limit, std::function<void(bool flush)> wake) : limit_(limit), wake_(std::move(wake)) {}

  bool Send(std::string event, std::string data) override {
    std::string text;
    if (!event.empty()) absl::StrAppend(&text, "event: ", event, "\n");
    for (absl::string_view line : absl::StrSplit(data, '\n'))
      absl::StrAppend(&text, "data: ", line, "\n");
    text += "\n";
    return Queue(std::move(text), true);
  }
  void Close() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return;
      closed_ = true;
    }
    wake_(true);
  }
  bool closed() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_;
  }

  // Internal (the session): queues without the limit when `limited` is false.
  bool Queue(std::string text, bool limited) {
    bool wake = false, overflow = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return false;
      if (limited && queued_ + text.size() > limit_) {
        closed_ = true;
        overflow = true;
      } else {
        queued_ += text.size();
        queue_.push_back(std::move(text));
        wake = !scheduled_;
        scheduled_ = true;
      }
    }
    if (overflow) {
      wake_(false);  // drop the slow reader without flushing
      return false;
    }
    if (wake) wake_(true);
    return true;
  }
  // Everything queued, in one string ("" when nothing); the session's write
  // pump. Bytes count against the limit until Written().
  std::string Take() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    for (std::string& s : queue_) out += s;
    queue_.clear();
    if (out.empty()) scheduled_ = false;
    return out;
  }
  void Written(size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    queued_ -= std::min(n, queued_);
  }
  bool closed_and_empty() const {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_ && queue_.empty();
  }
  void MarkClosed() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }

 private:
  const size_t limit_;
  const std::function<void(bool)> wake_;
  mutable std::mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool scheduled_ ABSL_GUARDED_BY(mu_) = false;
  size_t queued_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);
};

using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// One connection: a loop of read head, admit, read body, run the handler on
// the pool, write; or, on a stream route, the event stream until either side
// ends it. Every step runs on the connection's strand.
template <class Stream>
class Session : public SessionBase, public std::enable_shared_from_this<Session<Stream>> {
 public:
  Session(std::shared_ptr<Core> core, asio::thread_pool* pool, Stream stream, std::string peer,
          bool peer_trusted)
      : core_(std::move(core)),
        pool_(pool),
        stream_(std::move(stream)),
        peer_(std::move(peer)),
        peer_trusted_(peer_trusted),
        heartbeat_(stream_.get_executor()) {}

  ~Session() override {
    if (sink_) sink_->MarkClosed();
    std::lock_guard<std::mutex> lock(core_->mu);
    --core_->connections;
    if (!peer_trusted_) {
      const std::string network = net::PrefixKey(peer_);
      if (--core_->connections_by_address[network] <= 0) core_->connections_by_address.erase(network);
    }
    if (stream_slot_) {
      --core_->streams;
      if (--core_->streams_by_address[client_] <= 0) core_->streams_by_address.erase(client_);
    }
    core_->sessions.erase(this);
    if (core_->sessions.empty()) core_->sessions_gone.notify_all();
  }

  void Run() {
    asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      if constexpr (std::is_same_v<Stream, TlsStream>) {
        self->Lowest().expires_after(Chrono(self->core_->options.handshake_timeout));
        self->stream_.async_handshake(ssl::stream_base::server,
                                      [self](beast::error_code ec) {
                                        if (ec) return self->Close();
                                        self->ReadRequest();
                                      });
      } else {
        self->ReadRequest();
      }
    });
  }

  void CloseAsync() override {
    closed_ = true;
    asio::post(stream_.get_executor(), [self = this->shared_from_this()] { self->Close(); });
  }

 private:
  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }

  void ReadRequest() {
    if (closed_) return Close();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(
        std::min<size_t>(core_->options.max_header_bytes, UINT32_MAX)));
    // The largest any route takes: Beast checks a Content-Length against it
    // while it parses the head; OnHead then sets the matched route's own.
    parser_->body_limit(std::max(core_->options.max_body_bytes, core_->max_route_body));
    if (first_ || buffer_.size() > 0) {
      first_ = false;
      ReadHead();
      return;
    }
    // Kept alive: wait up to the idle timeout for the next request's first
    // bytes, then give its head the header timeout.
    Lowest().expires_after(Chrono(core_->options.idle_timeout));
    stream_.async_read_some(
        buffer_.prepare(4096), [self = this->shared_from_this()](beast::error_code ec, size_t n) {
          if (ec) return self->Close();
          self->buffer_.commit(n);
          self->ReadHead();
        });
  }

  void ReadHead() {
    Lowest().expires_after(Chrono(core_->options.header_timeout));
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = this->shared_from_this()](beast::error_code ec, size_t) {
                              self->OnHead(ec);
                            });
  }

  void OnHead(beast::error_code ec) {
    if (ec == http::error::header_limit) return Refuse(431, "request head too large");
    if (ec == http::error::body_limit) return Refuse(413, "request body too large");
    if (ec && Malformed(ec)) return Refuse(400, "malformed request");
    if (ec) return Close();

    const auto& head = parser_->get();
    // As cpp-httplib did: std::regex recurses per character, so routes never
    // see very long paths.
    if (head.target().size() > kMaxTargetBytes) return Refuse(414, "request target too long");
    request_ = HttpRequest();
    request_.method = std::string(head.method_string());
    absl::string_view target = A(head.target());
    size_t q = target.find('?');
    request_.path = DecodeUrl(target.substr(0, q), false);
    if (q != absl::string_view::npos) ParseQuery(target.substr(q + 1), &request_.query);
    for (const auto& f : head) {
      std::string& v = request_.headers[absl::AsciiStrToLower(A(f.name_string()))];
      if (!v.empty()) v += ", ";
      v.append(f.value().data(), f.value().size());
    }
    request_.remote_addr = peer_;
    if (peer_trusted_) {
      request_.via_proxy = true;
      request_.remote_addr = core_->ForwardedClient(peer_, head);
    }
    keep_alive_ = head.keep_alive();

    if (core_->options.admit) {
      if (std::optional<HttpResponse> refused = core_->options.admit(request_))
        return Write(*std::move(refused));
    }

    // Route: the first whose method and pattern match.
    const bool head_request = head.method() == http::verb::head;
    route_ = nullptr;
    for (const Route& r : core_->routes) {
      const bool method_ok = r.method == request_.method || (head_request && r.method == "GET");
      std::smatch m;
      if (method_ok && std::regex_match(request_.path, m, r.pattern)) {
        route_ = &r;
        request_.matches.clear();
        for (const auto& group : m) request_.matches.push_back(group.str());
        break;
      }
    }
    if (route_ != nullptr && route_->streamer) {
      if (!head_request) return StartStream();
      route_ = nullptr;  // HEAD of a stream: not found
    }

    if (parser_->is_done()) return Dispatch();
    size_t limit = core_->options.max_body_bytes;
    if (route_ != nullptr && route_->max_body_bytes > limit) limit = route_->max_body_bytes;
    if (auto len = parser_->content_length(); len && *len > limit)
      return Refuse(413, absl::StrCat("request body too large (at most ", limit, " bytes)"));
    if (limit > core_->options.max_body_bytes) {
      // A large body: one of max_large_bodies slots until its handler returns.
      if (core_->large_bodies.fetch_add(1) >= core_->options.max_large_bodies) {
        core_->large_bodies.fetch_sub(1);
        return Refuse(503, "too many large uploads at once: try again shortly");
      }
      large_slot_ = std::shared_ptr<void>(nullptr, [core = core_](void*) {
        core->large_bodies.fetch_sub(1);
      });
    }
    parser_->body_limit(limit);
    if (beast::iequals(head[http::field::expect], "100-continue")) {
      auto cont = std::make_shared<std::string>("HTTP/1.1 100 Continue\r\n\r\n");
      Lowest().expires_after(Chrono(core_->options.write_timeout));
      asio::async_write(stream_, asio::buffer(*cont),
                       [self = this->shared_from_this(), cont](beast::error_code ec, size_t) {
                         if (ec) return self->Close();
                         self->ReadBody();
                       });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    Lowest().expires_after(Chrono(core_->options.body_timeout));
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](beast::error_code ec, size_t) {
                       if (ec == http::error::body_limit)
                         return self->Refuse(413, "request body too large");
                       if (ec && Malformed(ec))
                         return self->Refuse(400, "malformed request body");
                       if (ec) return self->Close();
                       self->Dispatch();
                     });
  }

  // The handler (or the not-found answer) on the pool; the response back on
  // the strand.
  void Dispatch() {
    request_.body = std::move(parser_->get().body());
    Lowest().expires_never();
    asio::post(*pool_, [self = this->shared_from_this()] {
      if (self->closed_) return;
      HttpResponse out;
      try {
        if (self->route_ != nullptr) {
          out = self->route_->handler(self->request_);
        } else if (self->core_->not_found) {
          out = self->core_->not_found(self->request_);
        } else {
          out.status = 404;
          out.content_type.clear();
        }
      } catch (...) {
        out = PlainText(500, "internal error");
      }
      self->request_.body.clear();
      self->request_.body.shrink_to_fit();
      self->large_slot_.reset();
      asio::post(self->stream_.get_executor(),
                [self, out = std::move(out)]() mutable { self->Write(std::move(out)); });
    });
  }

  void Refuse(int status, absl::string_view why) {
    keep_alive_ = false;
    large_slot_.reset();  // a refused body is not read on (Drain is bounded)
    Write(PlainText(status, why));
  }

  void Write(HttpResponse out) {
    if (closed_) return Close();
    // A request whose body was not read leaves the connection unusable.
    if (!parser_ || !parser_->is_done()) keep_alive_ = false;
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(11);
    res->result(static_cast<unsigned>(out.status));
    if (!out.content_type.empty()) res->set(http::field::content_type, out.content_type);
    for (auto& [name, value] : out.headers) res->insert(name, value);
    core_->AddHeaders(*res);
    const size_t size = out.body.size();
    if (parser_ && parser_->get().method() == http::verb::head) {
      res->content_length(size);
    } else {
      res->body() = std::move(out.body);
      res->prepare_payload();
    }
    res->keep_alive(keep_alive_);
    Lowest().expires_after(Chrono(core_->options.write_timeout));
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res](beast::error_code ec, size_t) {
                        if (ec || !self->keep_alive_) return self->Shutdown(ec);
                        self->ReadRequest();
                      });
  }

  // --- Server-sent events --------------------------------------------------

  void StartStream() {
    {
      std::lock_guard<std::mutex> lock(core_->mu);
      // Counted per client network (/24, /64: net::PrefixKey), as the
      // arena's other limits are: one network's many addresses share it.
      std::string network = net::PrefixKey(request_.remote_addr);
      if (network.empty()) network = request_.remote_addr;
      int& mine = core_->streams_by_address[network];
      if (core_->streams < core_->options.max_streams &&
          mine < core_->options.max_streams_per_address) {
        ++mine;
        ++core_->streams;
        stream_slot_ = true;
        client_ = network;
      } else if (mine == 0) {
        core_->streams_by_address.erase(network);
      }
    }
    if (!stream_slot_) return Refuse(503, "too many event streams");
    keep_alive_ = false;
    // The sink holds nothing of the server but this weak pointer: it may
    // outlive the server (and its io_context).
    std::weak_ptr<Session> weak = this->shared_from_this();
    sink_ = std::make_shared<Sink>(core_->options.max_stream_queue_bytes,
                                   [weak](bool flush) {
                                     auto self = weak.lock();
                                     if (!self) return;
                                     asio::post(self->stream_.get_executor(), [self, flush] {
                                       if (flush) {
                                         self->Pump();
                                       } else {
                                         self->Close();
                                       }
                                     });
                                   });
    http::response<http::empty_body> head(http::status::ok, 11);
    head.set(http::field::content_type, "text/event-stream");
    head.set(http::field::cache_control, "no-cache");
    head.set("X-Accel-Buffering", "no");  // nginx: do not buffer the stream
    head.keep_alive(false);
    core_->AddHeaders(head);
    std::string text = "HTTP/1.1 200 OK\r\n";
    for (const auto& f : head) absl::StrAppend(&text, A(f.name_string()), ": ", A(f.value()), "\r\n");
    text += "\r\n";
    sink_->Queue(std::move(text), false);

    // Nothing is expected from the client: a read that ends means it left.
    Lowest().expires_never();
    stream_.async_read_some(buffer_.prepare(512),
                            [self = this->shared_from_this()](beast::error_code, size_t) {
                              self->Close();
                            });
    Heartbeat();
    asio::post(*pool_, [self = this->shared_from_this(), sink = sink_] {
      if (self->closed_) return;
      try {
        self->route_->streamer(self->request_, sink);
      } catch (const std::exception&) {
        sink->Close();
      }
    });
  }

  void Heartbeat() {
    heartbeat_.expires_after(Chrono(core_->options.stream_heartbeat));
    heartbeat_.async_wait([self = this->shared_from_this()](beast::error_code ec) {
      if (ec || self->closed_) return;
      self->sink_->Queue(":\n\n", true);
      self->Heartbeat();
    });
  }

  void Pump() {
    if (writing_ || closed_) return;
    out_ = sink_->Take();
    if (out_.empty()) {
      if (sink_->closed_and_empty()) Shutdown({});
      return;
    }
    writing_ = true;
    Lowest().expires_after(Chrono(core_->options.write_timeout));  // the read is pending: writes only
    asio::async_write(stream_, asio::buffer(out_),
                     [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                       self->writing_ = false;
                       self->sink_->Written(n);
                       if (ec) return self->Close();
                       self->Pump();
                     });
  }

  // --- Ending ----------------------------------------------------------------

  // After the last response: TLS close_notify (bounded), then the socket.
  void Shutdown(beast::error_code ec) {
    if (closed_ || ec) return Close();
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      Lowest().expires_after(Chrono(core_->options.handshake_timeout));
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) { self->Close(); });
    } else {
      beast::error_code ignored;
      Lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
      if (parser_ && parser_->is_done()) return Close();
      // The client may still be sending the request we refused: closing now
      // would reset the connection and could lose the response on its way.
      // Read and discard for a bounded time and amount instead.
      Lowest().expires_after(std::chrono::seconds(2));
      Drain();
    }
  }

  void Drain() {
    buffer_.clear();
    stream_.async_read_some(buffer_.prepare(16 << 10),
                            [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                              self->drained_ += n;
                              if (ec || self->closed_ || self->drained_ > (1u << 20))
                                return self->Close();
                              self->Drain();
                            });
  }

  void Close() {
    closed_ = true;
    if (sink_) sink_->MarkClosed();
    heartbeat_.cancel();
    beast::error_code ignored;
    Lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    Lowest().close();
  }

  const std::shared_ptr<Core> core_;
  asio::thread_pool* const pool_;
  Stream stream_;
  const std::string peer_;
  const bool peer_trusted_;
  asio::steady_timer heartbeat_;
  std::atomic<bool> closed_{false};
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool first_ = true;
  size_t drained_ = 0;
  bool keep_alive_ = false;
  HttpRequest request_;
  const Route* route_ = nullptr;
  std::shared_ptr<void> large_slot_;  // held while a large body is read and handled
  // Streams.
  bool stream_slot_ = false;  // counted in Core::streams (under core_->mu)
  std::string client_;        // remote_addr's network, the key of streams_by_address
  std::shared_ptr<Sink> sink_;
  bool writing_ = false;
  std::string out_;
};

}  // namespace

struct HttpServer::Impl {
  std::shared_ptr<Core> core = std::make_shared<Core>();
  std::optional<ssl::context> tls;
  std::unique_ptr<asio::thread_pool> pool;
  // Last: destroyed first, with the sessions its queue still holds.
  std::unique_ptr<asio::io_context> ioc;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::unique_ptr<asio::steady_timer> retry;
  std::vector<std::thread> threads;
  bool started = false;
  bool stopped = false;

  void Accept();
  void OnAccept(beast::error_code ec, tcp::socket socket);
};

void HttpServer::Impl::Accept() {
  acceptor->async_accept(asio::make_strand(*ioc), [this](beast::error_code ec, tcp::socket socket) {
    OnAccept(ec, std::move(socket));
  });
}

void HttpServer::Impl::OnAccept(beast::error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor->is_open()) return;
  if (ec) {
    // Out of descriptors, say: try again shortly instead of giving up.
    retry->expires_after(std::chrono::milliseconds(100));
    retry->async_wait([this](beast::error_code e) {
      if (!e && acceptor->is_open()) Accept();
    });
    return;
  }
  beast::error_code peer_ec;
  tcp::endpoint peer = socket.remote_endpoint(peer_ec);
  if (peer_ec) return Accept();
  const std::string address = PeerAddress(peer);
  const bool trusted = core->Trusted(address);
  // Counted per client network (/24, /64: net::PrefixKey), as the streams
  // and the rate limits are: one host of an IPv6 /64 has 2^64 addresses, and
  // 17 of them filled max_connections (third red team, 2026-11-29).
  const std::string network = net::PrefixKey(address);
  bool admitted = false;
  {
    std::lock_guard<std::mutex> lock(core->mu);
    if (!core->stopping && core->connections < core->options.max_connections &&
        (trusted ||
         core->connections_by_address[network] < core->options.max_connections_per_address)) {
      admitted = true;
      ++core->connections;
      if (!trusted) ++core->connections_by_address[network];
    } else if (!trusted && core->connections_by_address[network] == 0) {
      core->connections_by_address.erase(network);
    }
  }
  if (!admitted) {
    if (!tls) {
      static constexpr char kBusy[] =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n"
          "Retry-After: 1\r\n\r\n";
      socket.non_blocking(true, peer_ec);
      socket.send(asio::buffer(kBusy, sizeof kBusy - 1), 0, peer_ec);
    }
    socket.close(peer_ec);
    return Accept();
  }
  socket.set_option(tcp::no_delay(true), peer_ec);
  std::shared_ptr<SessionBase> session;
  std::function<void()> run;
  if (tls) {
    auto s = std::make_shared<Session<TlsStream>>(core, pool.get(),
                                                  TlsStream(std::move(socket), *tls), address, trusted);
    session = s;
    run = [s] { s->Run(); };
  } else {
    auto s = std::make_shared<Session<PlainStream>>(core, pool.get(), PlainStream(std::move(socket)),
                                                    address, trusted);
    session = s;
    run = [s] { s->Run(); };
  }
  bool stopping;
  {
    std::lock_guard<std::mutex> lock(core->mu);
    core->sessions[session.get()] = session;
    stopping = core->stopping;
  }
  if (stopping) {
    session->CloseAsync();
  } else {
    run();
  }
  Accept();
}

HttpServer::HttpServer(HttpServerOptions options)
    : impl_(std::make_unique<Impl>()),
      tls_(!options.tls_cert_file.empty() || !options.tls_key_file.empty()) {
  impl_->core->options = std::move(options);
}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Get(const std::string& pattern, Handler handler) {
  impl_->core->routes.push_back(Route{"GET", std::regex(pattern), std::move(handler), nullptr});
}

void HttpServer::Post(const std::string& pattern, Handler handler) {
  impl_->core->routes.push_back(Route{"POST", std::regex(pattern), std::move(handler), nullptr});
}

void HttpServer::Post(const std::string& pattern, size_t max_body_bytes, Handler handler) {
  impl_->core->max_route_body = std::max(impl_->core->max_route_body, max_body_bytes);
  impl_->core->routes.push_back(
      Route{"POST", std::regex(pattern), std::move(handler), nullptr, max_body_bytes});
}

void HttpServer::GetStream(const std::string& pattern, StreamHandler handler) {
  impl_->core->routes.push_back(Route{"GET", std::regex(pattern), nullptr, std::move(handler)});
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

void HttpServer::SetNotFound(Handler handler) { impl_->core->not_found = std::move(handler); }

absl::StatusOr<int> HttpServer::Start(const std::string& host, int port) {
  if (impl_->started) return absl::FailedPreconditionError("the HTTP server was started before");
  Core& core = *impl_->core;
  for (const std::string& text : core.options.trusted_proxies) {
    absl::StatusOr<tarock::net::AddressRange> range = tarock::net::ParseRange(text);
    if (!range.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("trusted proxy '", text, "' is not an address or CIDR prefix"));
    core.trusted.push_back(*std::move(range));
  }
  if (tls_) {
    auto& ctx = impl_->tls.emplace(ssl::context::tls_server);
    ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                    ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                    ssl::context::single_dh_use);
    beast::error_code ec;
    if (!ec) ctx.use_certificate_chain_file(core.options.tls_cert_file, ec);
    if (!ec) ctx.use_private_key_file(core.options.tls_key_file, ssl::context::pem, ec);
    if (ec || SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
      impl_->tls.reset();
      return absl::FailedPreconditionError(
          "cannot load the TLS certificate and key for HTTPS (PEM files, the key matching the "
          "certificate)");
    }
  }
  const int io_threads = std::max(1, core.options.io_threads);
  impl_->ioc = std::make_unique<asio::io_context>(io_threads);
  auto unavailable = [&](const beast::error_code& ec) {
    impl_->acceptor.reset();
    impl_->ioc.reset();
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", host, ":", port, ": ", ec.message()));
  };
  beast::error_code ec;
  std::string name = host.empty() ? "0.0.0.0" : host;
  if (name.size() > 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
  tcp::resolver resolver(*impl_->ioc);
  auto endpoints = resolver.resolve(name, std::to_string(port),
                                    tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty()) return unavailable(ec);
  const tcp::endpoint endpoint = *endpoints.begin();
  impl_->acceptor = std::make_unique<tcp::acceptor>(asio::make_strand(*impl_->ioc));
  impl_->acceptor->open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor->bind(endpoint, ec);
  if (!ec) impl_->acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return unavailable(ec);
  const int bound = impl_->acceptor->local_endpoint(ec).port();
  if (ec) return unavailable(ec);

  impl_->retry = std::make_unique<asio::steady_timer>(impl_->acceptor->get_executor());
  impl_->pool = std::make_unique<asio::thread_pool>(std::max(1, core.options.handler_threads));
  impl_->started = true;
  impl_->Accept();
  for (int i = 0; i < io_threads; ++i)
    impl_->threads.emplace_back([ioc = impl_->ioc.get()] { ioc->run(); });
  return bound;
}

void HttpServer::Stop() {
  Impl& impl = *impl_;
  if (!impl.started || impl.stopped) return;
  impl.stopped = true;
  Core& core = *impl.core;
  std::vector<std::weak_ptr<SessionBase>> sessions;
  {
    std::lock_guard<std::mutex> lock(core.mu);
    core.stopping = true;
    for (auto& [ptr, weak] : core.sessions) sessions.push_back(weak);
  }
  asio::post(impl.acceptor->get_executor(), [&impl] {
    beast::error_code ignored;
    impl.acceptor->close(ignored);
    impl.retry->cancel();
  });
  for (auto& weak : sessions)
    if (auto s = weak.lock()) s->CloseAsync();
  sessions.clear();
  // Handlers of closed connections return at once; running ones are awaited.
  impl.pool->join();
  {
    std::unique_lock<std::mutex> lock(core.mu);
    core.sessions_gone.wait_for(lock, std::chrono::seconds(2),
                                [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return core.sessions.empty(); });
  }
  impl.ioc->stop();
  for (std::thread& t : impl.threads) t.join();
  impl.threads.clear();
}

}  // namespace tarock::metrics
