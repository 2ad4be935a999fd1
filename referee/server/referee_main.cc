// `tarock-referee`: the referee process. Serves the Referee gRPC service (run a
// match from a spec, stream its progress and result) and Prometheus metrics
// over HTTP at /metrics.
//
//   tarock-referee --listen=127.0.0.1:7701 --metrics_listen=127.0.0.1:9701
//
// Port 0 picks a free port; the bound addresses are printed on standard output
// ("referee listening on HOST:PORT", "metrics on http://HOST:PORT/metrics").
// SIGINT or SIGTERM stops it: after --drain_ms running matches are
// interrupted, and the process exits within --drain_ms + --shutdown_ms + 1 s.

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <algorithm>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "referee/core/match_runner.h"
#include "referee/core/referee_metrics.h"
#include "referee/engine/registry.h"
#include "referee/logging/log.h"
#include "referee/metrics/grpc_metrics.h"
#include "referee/metrics/http_server.h"
#include "referee/net/listener_watchdog.h"
#include "referee/server/grpc_bot_connection.h"
#include "referee/server/health_service.h"
#include "referee/server/referee_service.h"
#include "referee/server/seat_gateway_service.h"
#include "referee/tools/program_usage.h"
#include "tarock/transport/transport.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:7701", "HOST:PORT of the Referee gRPC service");
ABSL_FLAG(std::string, metrics_listen, "127.0.0.1:0",
          "HOST:PORT of the HTTP /metrics endpoint (empty: none)");
ABSL_FLAG(int, connect_timeout_ms, 10000, "how long to wait for a bot at the start of a match");
ABSL_FLAG(int64_t, default_per_decision_ms, 10000, "per-decision limit when a spec gives none");
ABSL_FLAG(int64_t, default_grace_ms, 50, "grace on every limit when a spec gives none");
ABSL_FLAG(int, max_bot_message_bytes, 64 * 1024, "largest message accepted from a bot");
ABSL_FLAG(int, match_threads, 1,
          "threads that run the matches (each polls its own completion queue of bot streams); "
          "one runs thousands of matches, more help only with more cores");
ABSL_FLAG(std::vector<std::string>, allow_bot_ranges, {},
          "address ranges (CIDR, comma separated) the referee may dial bots in although they "
          "are not globally reachable (loopback, private, link-local, metadata, documentation, "
          "benchmarking, reserved: IANA's special-purpose registries), which it refuses otherwise "
          "(checked when each seat is dialed; include the arena's address for the seats it "
          "relays); a referee whose --listen is loopback also allows 127.0.0.0/8 and ::1");
ABSL_FLAG(std::vector<std::string>, plugin, {}, "variant plugin libraries to load");
ABSL_FLAG(std::string, referee_token, "",
          "a token every RunMatch call must carry (authorization: Bearer TOKEN), where client "
          "certificates (--tls_client_ca) are not used; default $TAROCK_REFEREE_TOKEN");
ABSL_FLAG(int, drain_ms, 0,
          "after SIGTERM, report NOT_SERVING on the health service (grpc.health.v1) for this "
          "long before stopping, so that load balancers and arenas resolving the referees by "
          "DNS stop sending matches first; matches still running then are cancelled");
ABSL_FLAG(int, shutdown_ms, 5000,
          "after the drain, how long matches get to end once cancelled and calls to close; "
          "then the process exits whatever is left, so SIGTERM always ends it within "
          "--drain_ms + --shutdown_ms + 1 s");
ABSL_FLAG(int, max_matches, 256,
          "RunMatch calls running at once; more are refused with RESOURCE_EXHAUSTED (0: no limit)");
ABSL_FLAG(int64_t, max_per_decision_ms, 600000,
          "largest per_decision_ms a spec may ask (INVALID_ARGUMENT beyond; 0: no limit)");
ABSL_FLAG(int64_t, max_match_bank_ms, 3600000,
          "largest match_bank_ms a spec may ask (INVALID_ARGUMENT beyond; 0: no limit)");
ABSL_FLAG(int64_t, max_grace_ms, 60000,
          "largest grace_ms a spec may ask (INVALID_ARGUMENT beyond; 0: no limit)");
ABSL_FLAG(int, max_hands, 2000, "most hands a spec may ask (INVALID_ARGUMENT beyond)");
ABSL_FLAG(int64_t, max_match_ms, 6 * 3600 * 1000,
          "a match still running after this long is stopped and its RunMatch ends with "
          "DEADLINE_EXCEEDED (0: no limit)");
ABSL_FLAG(int, max_joins_per_client, 64,
          "SeatGateway.Join calls from one client (IPv4 address or IPv6 /64) waiting for their "
          "matches at once; more are refused with RESOURCE_EXHAUSTED (of 1024 in all)");
ABSL_FLAG(int, handshake_timeout_ms, 10000,
          "a connection that has not completed its TLS and HTTP/2 handshake in this long is "
          "closed");
ABSL_FLAG(int, max_connection_idle_ms, 600000,
          "a client connection with no call for this long is closed (the arena reconnects)");
ABSL_FLAG(int, listener_watchdog_s, 10,
          "probe the gRPC port over loopback this often; when 3 probes in a row go unanswered "
          "(gRPC stopped accepting, e.g. after running out of descriptors: grpc/grpc#20418) "
          "log an error and exit with status 70 so that systemd or Kubernetes restart the "
          "referee (0: no watchdog)");

namespace {
std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

}  // namespace

int main(int argc, char** argv) {
  tarock::SetProgramUsage(
      "tarock-referee [--listen=HOST:PORT] [--metrics_listen=HOST:PORT] [FLAGS]\n"
      "The Tarock Arena referee: serves the Referee gRPC service (RunMatch runs a match from a\n"
      "MatchSpec between bots it dials over gRPC, enforcing the rules, the time control and the\n"
      "fault policy, and streams the progress and the match record) and Prometheus metrics at\n"
      "http://METRICS_LISTEN/metrics. Port 0 picks a free port; the bound addresses are printed.\n"
      "SIGINT or SIGTERM stop it (running matches are cancelled).\n"
      "Plaintext only on loopback: elsewhere give --tls_cert/--tls_key (and --tls_client_ca to\n"
      "accept only clients with certificates from that CA, or --referee_token), --tls_ca to\n"
      "dial bots over TLS, or --allow_plaintext on a trusted network.\n"
      "  tarock-referee --listen=127.0.0.1:7701 --metrics_listen=127.0.0.1:9701");
  tarock::ParseCommandLine(argc, argv);
  if (absl::Status s = tarock::logging::ApplyLogFlags(); !s.ok()) {
    std::fprintf(stderr, "tarock-referee: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  // Debian's Abseil is built with Mutex deadlock detection on, which builds a
  // lock graph on every acquisition: a real cost on the hot path of a server
  // (it showed in profiles). The unit tests keep it on.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Many bot streams: as many descriptors as the hard limit (LimitNOFILE in
  // the units) allows.
  if (const long nofile = tarock::net::RaiseOpenFileLimit(); nofile >= 0 && nofile < 4096)
    tarock::logging::Warning("referee", "few file descriptors (the hard limit): connections beyond "
                             "them are refused", {{"nofile", static_cast<int64_t>(nofile)}});
  for (const std::string& p : absl::GetFlag(FLAGS_plugin)) {
    if (absl::Status s = tarock::Registry::Global().LoadPlugin(p); !s.ok()) {
      std::fprintf(stderr, "tarock-referee: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  }
  prometheus::Registry registry;
  tarock::RefereeMetrics metrics(&registry);
  tarock::metrics::GrpcMetrics grpc_metrics(&registry);
  tarock::GrpcConnectorOptions connector_options;
  connector_options.max_receive_bytes = absl::GetFlag(FLAGS_max_bot_message_bytes);
  absl::StatusOr<tarock::transport::Transport> transport = tarock::transport::Transport::FromFlags();
  if (!transport.ok()) {
    std::fprintf(stderr, "tarock-referee: %s\n", std::string(transport.status().message()).c_str());
    return 1;
  }
  // /metrics: beyond loopback HTTPS with the gRPC certificate (or refused
  // without one, unless --allow_plaintext); plain HTTP on loopback.
  const std::string metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  const tarock::transport::TransportOptions tls = tarock::transport::TransportOptionsFromFlags();
  tarock::metrics::HttpServerOptions http_options;
  if (!metrics_listen.empty() && !tarock::transport::IsLoopbackAddress(metrics_listen)) {
    if (tls.cert_file.empty() && !tls.allow_plaintext) {
      std::fprintf(stderr,
                   "tarock-referee: refusing to serve /metrics in plaintext on %s, which is not a "
                   "loopback address: give --tls_cert and --tls_key (HTTPS), or --allow_plaintext "
                   "on a trusted network\n",
                   metrics_listen.c_str());
      return 1;
    }
    http_options.tls_cert_file = tls.cert_file;
    http_options.tls_key_file = tls.key_file;
  }
  absl::StatusOr<tarock::net::EndpointPolicy> policy = tarock::net::EndpointPolicy::ForListener(
      absl::GetFlag(FLAGS_allow_bot_ranges),
      tarock::transport::IsLoopbackAddress(absl::GetFlag(FLAGS_listen)));
  if (!policy.ok()) {
    std::fprintf(stderr, "tarock-referee: %s\n", std::string(policy.status().message()).c_str());
    return 1;
  }
  connector_options.endpoint_policy = *std::move(policy);
  // One event loop for the streams the referee dials and the ones bots open
  // to it (SeatGateway.Join): its queues are the server's, so a joined bot's
  // answer is read and played by the match's thread, as a dialed one's is.
  grpc::ServerBuilder builder;
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues;
  for (int i = 0; i < std::max(1, absl::GetFlag(FLAGS_match_threads)); ++i)
    queues.push_back(builder.AddCompletionQueue());
  tarock::CompletionLoop loop(std::move(queues));
  connector_options.loop = &loop;
  tarock::GrpcBotConnector dialer(connector_options, *transport);
  // Dial-in bots on the direct route join their seats here instead of being
  // dialed (referee/core/joined_seat.h).
  tarock::JoinOptions join_options;
  join_options.max_early_joins_per_client = std::max(1, absl::GetFlag(FLAGS_max_joins_per_client));
  tarock::SeatRendezvous rendezvous(join_options);
  tarock::JoinOrDialConnector connector(&rendezvous, &dialer);
  tarock::SeatGatewayService seat_gateway(&rendezvous);
  tarock::RefereeOptions options;
  options.connect_timeout = absl::Milliseconds(absl::GetFlag(FLAGS_connect_timeout_ms));
  options.default_per_decision_ms = absl::GetFlag(FLAGS_default_per_decision_ms);
  options.default_grace_ms = absl::GetFlag(FLAGS_default_grace_ms);
  options.max_hands = std::max(1, absl::GetFlag(FLAGS_max_hands));
  options.max_per_decision_ms = absl::GetFlag(FLAGS_max_per_decision_ms);
  options.max_match_bank_ms = absl::GetFlag(FLAGS_max_match_bank_ms);
  options.max_grace_ms = absl::GetFlag(FLAGS_max_grace_ms);
  if (options.max_per_decision_ms > 0 && options.default_per_decision_ms > options.max_per_decision_ms) {
    std::fprintf(stderr, "tarock-referee: --default_per_decision_ms is above --max_per_decision_ms\n");
    return 1;
  }
  tarock::MatchRunner runner(options, &connector, &metrics);
  tarock::RefereeServiceOptions service_options;
  service_options.required_token = tarock::transport::SecretFromFlagOrEnv(
      absl::GetFlag(FLAGS_referee_token), "TAROCK_REFEREE_TOKEN");
  service_options.max_concurrent_matches = std::max(0, absl::GetFlag(FLAGS_max_matches));
  service_options.max_match_time = absl::Milliseconds(std::max<int64_t>(0, absl::GetFlag(FLAGS_max_match_ms)));
  // Reachable beyond loopback and nobody has to prove who they are: anyone
  // who reaches the port can make this referee dial and run matches (said
  // once it listens).
  const bool unauthenticated = !tarock::transport::IsLoopbackAddress(absl::GetFlag(FLAGS_listen)) &&
                               service_options.required_token.empty() &&
                               tls.client_ca_file.empty();
  tarock::RefereeService service(&runner, service_options);

  // grpc.health.v1.Health for probes: SERVING from the start (nothing to
  // prepare), NOT_SERVING while draining and stopping. Its Watch streams are
  // bounded per client network and end after the idle time, so a stranger's
  // stream keeps no connection beyond the idle close (issue 44).
  tarock::HealthServiceOptions health_options;
  const int idle_ms = absl::GetFlag(FLAGS_max_connection_idle_ms);
  health_options.max_watch = absl::Milliseconds(idle_ms > 0 ? idle_ms : 600000);
  tarock::HealthService health(health_options);
  int port = 0;
  const std::string listen = absl::GetFlag(FLAGS_listen);
  auto credentials = transport->ServerCredentials(listen);
  if (!credentials.ok()) {
    std::fprintf(stderr, "tarock-referee: %s\n", std::string(credentials.status().message()).c_str());
    return 1;
  }
  builder.AddListeningPort(listen, *credentials, &port);
  // The arena pings every 2 s to notice a dead referee; without these the
  // server answers such pings with GOAWAY "too_many_pings".
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  // Connections that never finish their handshake (gRPC's default: 120 s),
  // and ones left idle, are closed; the server pings its clients every 30 s
  // so that a caller that vanished is noticed (and its match interrupted).
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
                             std::max(1000, absl::GetFlag(FLAGS_handshake_timeout_ms)));
  if (idle_ms > 0) builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, idle_ms);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 30000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  builder.RegisterService(&service);
  builder.RegisterService(&health);
  seat_gateway.Register(&builder);
  builder.experimental().SetInterceptorCreators(grpc_metrics.ServerInterceptors());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "tarock-referee: cannot listen on %s\n", listen.c_str());
    return 1;
  }
  loop.Start();
  seat_gateway.Start(&loop);
  health.SetServing(true, {"tarock.v1.Referee", "tarock.v1.SeatGateway"});
  std::printf("referee listening on %s:%d\n", tarock::metrics::SplitHostPort(listen).first.c_str(), port);
  tarock::logging::Info("referee", "listening",
                        {{"address", absl::StrCat(tarock::metrics::SplitHostPort(listen).first, ":", port)}});
  if (unauthenticated) {
    std::fprintf(stderr,
                 "tarock-referee: WARNING: listening on %s, beyond loopback, without "
                 "--referee_token or --tls_client_ca: anyone who reaches this port can run "
                 "matches here\n",
                 listen.c_str());
    tarock::logging::Warning("referee", "no client authentication beyond loopback",
                             {{"listen", listen}});
  }

  tarock::metrics::HttpServer http(http_options);
  if (!metrics_listen.empty()) {
    http.ServeMetrics({&registry});
    auto [host, mport] = tarock::metrics::SplitHostPort(metrics_listen);
    absl::StatusOr<int> bound = http.Start(host, mport);
    if (!bound.ok()) {
      std::fprintf(stderr, "tarock-referee: %s\n", std::string(bound.status().message()).c_str());
      return 1;
    }
    std::printf("metrics on %s://%s:%d/metrics\n", http.tls() ? "https" : "http", host.c_str(),
                *bound);
  }
  std::fflush(stdout);
  // gRPC 1.51 can stop accepting for good after EMFILE (grpc/grpc#20418):
  // a dead listener ends the process, for the service manager to restart.
  std::unique_ptr<tarock::net::ListenerWatchdog> watchdog;
  if (const int every_s = absl::GetFlag(FLAGS_listener_watchdog_s); every_s > 0) {
    tarock::net::ListenerWatchdogOptions o;
    o.interval = absl::Seconds(every_s);
    o.timeout = std::min(absl::Seconds(5), o.interval);
    watchdog = std::make_unique<tarock::net::ListenerWatchdog>(
        "referee grpc", tarock::net::ProbeHostFor(tarock::metrics::SplitHostPort(listen).first),
        port, o, [] { std::_Exit(70); });
  }
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  for (int tick = 0; !g_stop.load(); ++tick) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (tick % 20 == 0) rendezvous.ExpireParked(absl::Now());
  }
  if (watchdog) watchdog->Stop();
  // The bound on stopping: whatever still runs then, the process exits.
  const int drain_ms = std::max(0, absl::GetFlag(FLAGS_drain_ms));
  const int shutdown_ms = std::max(100, absl::GetFlag(FLAGS_shutdown_ms));
  std::thread([bound = drain_ms + shutdown_ms + 1000] {
    std::this_thread::sleep_for(std::chrono::milliseconds(bound));
    tarock::logging::Warning("referee", "shutdown bound reached; exiting", {{"after_ms", bound}});
    std::fflush(stdout);
    std::_Exit(0);
  }).detach();
  health.SetServing(false, {"tarock.v1.Referee", "tarock.v1.SeatGateway"});
  if (drain_ms > 0) {
    tarock::logging::Info("referee", "draining", {{"drain_ms", drain_ms}});
    std::this_thread::sleep_for(std::chrono::milliseconds(drain_ms));
  }
  // Every match is interrupted now (its bot streams closed), not at its
  // next decision, which a silent bot could put off for its whole limit.
  const absl::Time stop_by = absl::Now() + absl::Milliseconds(shutdown_ms);
  service.CancelAll();
  if (!service.AwaitIdle(stop_by - absl::Milliseconds(shutdown_ms / 2)))
    tarock::logging::Warning("referee", "matches still running at shutdown",
                             {{"matches", service.active()}});
  seat_gateway.Stop();
  health.Shutdown();  // open Watch streams end now, not at the shutdown's deadline
  server->Shutdown(absl::ToChronoTime(stop_by - absl::Milliseconds(shutdown_ms / 4)));
  // The Join calls end once their cancellation went through the loop; a
  // queue shut down under a live call would abort the process.
  if (!seat_gateway.AwaitCallsEnded(stop_by)) {
    tarock::logging::Info("referee", "exiting with Join calls still open", {});
    std::fflush(stdout);
    std::_Exit(0);
  }
  loop.Shutdown();
  http.Stop();
  return 0;
}
