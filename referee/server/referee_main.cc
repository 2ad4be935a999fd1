// `tarock-referee`: the referee process. Serves the Referee gRPC service (run a
// match from a spec, stream its progress and result) and Prometheus metrics
// over HTTP at /metrics.
//
//   tarock-referee --listen=127.0.0.1:7701 --metrics_listen=127.0.0.1:9701
//
// Port 0 picks a free port; the bound addresses are printed on standard output
// ("referee listening on HOST:PORT", "metrics on http://HOST:PORT/metrics").
// SIGINT or SIGTERM stops it: running matches are cancelled.

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
#include "referee/server/grpc_bot_connection.h"
#include "referee/server/referee_service.h"
#include "referee/server/seat_gateway_service.h"
#include "referee/tools/program_usage.h"
#include "tarock/sdk/health.h"
#include "tarock/sdk/transport.h"

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
          "are loopback, private, link-local or metadata addresses, which it refuses otherwise "
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
  absl::ParseCommandLine(argc, argv);
  if (absl::Status s = tarock::logging::ApplyLogFlags(); !s.ok()) {
    std::fprintf(stderr, "tarock-referee: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  // Debian's Abseil is built with Mutex deadlock detection on, which builds a
  // lock graph on every acquisition: a real cost on the hot path of a server
  // (it showed in profiles). The unit tests keep it on.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
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
  absl::StatusOr<tarock::sdk::Transport> transport = tarock::sdk::Transport::FromFlags();
  if (!transport.ok()) {
    std::fprintf(stderr, "tarock-referee: %s\n", std::string(transport.status().message()).c_str());
    return 1;
  }
  // /metrics: beyond loopback HTTPS with the gRPC certificate (or refused
  // without one, unless --allow_plaintext); plain HTTP on loopback.
  const std::string metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  const tarock::sdk::TransportOptions tls = tarock::sdk::TransportOptionsFromFlags();
  tarock::metrics::HttpServerOptions http_options;
  if (!metrics_listen.empty() && !tarock::sdk::IsLoopbackAddress(metrics_listen)) {
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
      tarock::sdk::IsLoopbackAddress(absl::GetFlag(FLAGS_listen)));
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
  tarock::SeatRendezvous rendezvous;
  tarock::JoinOrDialConnector connector(&rendezvous, &dialer);
  tarock::SeatGatewayService seat_gateway(&rendezvous);
  tarock::RefereeOptions options;
  options.connect_timeout = absl::Milliseconds(absl::GetFlag(FLAGS_connect_timeout_ms));
  options.default_per_decision_ms = absl::GetFlag(FLAGS_default_per_decision_ms);
  options.default_grace_ms = absl::GetFlag(FLAGS_default_grace_ms);
  tarock::MatchRunner runner(options, &connector, &metrics);
  tarock::RefereeService service(
      &runner, tarock::sdk::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_referee_token),
                                                "TAROCK_REFEREE_TOKEN"));

  // grpc.health.v1.Health for probes: SERVING from the start (nothing to
  // prepare), NOT_SERVING while draining and stopping.
  tarock::sdk::EnableHealthService();
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
  builder.RegisterService(&service);
  seat_gateway.Register(&builder);
  builder.experimental().SetInterceptorCreators(grpc_metrics.ServerInterceptors());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "tarock-referee: cannot listen on %s\n", listen.c_str());
    return 1;
  }
  loop.Start();
  seat_gateway.Start(&loop);
  tarock::sdk::SetServing(*server, true, {"tarock.v1.Referee", "tarock.v1.SeatGateway"});
  std::printf("referee listening on %s:%d\n", tarock::metrics::SplitHostPort(listen).first.c_str(), port);
  tarock::logging::Info("referee", "listening",
                        {{"address", absl::StrCat(tarock::metrics::SplitHostPort(listen).first, ":", port)}});

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
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  for (int tick = 0; !g_stop.load(); ++tick) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (tick % 20 == 0) rendezvous.ExpireParked(absl::Now());
  }
  tarock::sdk::SetServing(*server, false, {"tarock.v1.Referee", "tarock.v1.SeatGateway"});
  if (const int drain_ms = absl::GetFlag(FLAGS_drain_ms); drain_ms > 0) {
    tarock::logging::Info("referee", "draining", {{"drain_ms", drain_ms}});
    std::this_thread::sleep_for(std::chrono::milliseconds(drain_ms));
  }
  service.CancelAll();
  // Matches end at their next decision (or once their bots' waits run out).
  service.AwaitIdle(absl::Now() + absl::Seconds(2));
  seat_gateway.Stop();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  // The Join calls end once their cancellation went through the loop; a
  // queue shut down under a live call would abort the process.
  if (!seat_gateway.AwaitCallsEnded(absl::Now() + absl::Seconds(2))) {
    tarock::logging::Info("referee", "exiting with Join calls still open", {});
    std::fflush(stdout);
    std::_Exit(0);
  }
  loop.Shutdown();
  http.Stop();
  return 0;
}
