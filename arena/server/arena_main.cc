// `tarock-arena`: the arena server. Keeps the bots, runs ladders and
// tournaments on a pool of tarock-referee processes, rates the bots, stores
// everything in the database --database names (SQLite under --data_dir by
// default, or PostgreSQL: docs/database.md), and serves the Arena gRPC
// service, a JSON HTTP API and Prometheus /metrics.
//
//   tarock-arena --data_dir=arena-data --referees=127.0.0.1:7701,127.0.0.1:7702
//   tarock-arena --database=postgresql://arena@db:5432/arena --referees=...
//
// It prints "arena listening on HOST:PORT" and "http on http://HOST:PORT" once
// it serves. SIGINT or SIGTERM stop it; matches in flight run again at the next
// start (so does everything after a SIGKILL).

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "arena/gateway/bot_gateway_service.h"
#include "arena/gateway/dial_in_hub.h"
#include "arena/play/bot_relay_service.h"
#include "arena/play/play_api.h"
#include "arena/play/seat_relay.h"
#include "arena/scheduler/referee_resolver.h"
#include "arena/scheduler/scheduler.h"
#include "arena/server/admission.h"
#include "arena/server/hosting_http.h"
#include "arena/server/arena_service.h"
#include "arena/server/grpc_bot_prober.h"
#include "arena/server/grpc_referee_client.h"
#include "arena/server/hosting_service.h"
#include "arena/server/http_api.h"
#include "arena/server/http_json.h"
#include "arena/store/store.h"
#include "referee/logging/log.h"
#include "referee/metrics/grpc_metrics.h"
#include "referee/net/listener_watchdog.h"
#include "referee/tools/program_usage.h"
#include "referee/server/health_service.h"
#include "tarock/transport/transport.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:7700", "HOST:PORT of the Arena gRPC service");
ABSL_FLAG(std::string, http_listen, "127.0.0.1:8700",
          "HOST:PORT of the JSON API and /metrics (empty: none)");
ABSL_FLAG(std::string, data_dir, "arena-data",
          "directory of the arena's files (the referee key) and, unless --database names "
          "another, of the SQLite database (DIR/arena.db)");
ABSL_FLAG(std::string, database, "",
          "the database: sqlite:DIR (the file DIR/arena.db) or postgresql://USER@HOST:PORT/NAME "
          "(docs/database.md); empty: sqlite:--data_dir");
ABSL_FLAG(int, lease_s, 0,
          "several arenas on one database (docs/database.md, \"Several arenas\"): each claims "
          "matches with leases of this many seconds, renewed while they run; an arena that dies "
          "has its matches taken over once they expire (0: this arena alone, matches queued in "
          "memory)");
ABSL_FLAG(std::vector<std::string>, referees, {},
          "tarock-referee addresses, comma separated: HOST:PORT, or dns:///NAME:PORT for every "
          "address NAME resolves to (e.g. a Kubernetes headless Service), looked up again every "
          "--referee_resolve_interval");
ABSL_FLAG(absl::Duration, referee_resolve_interval, absl::Seconds(30),
          "how often dns:/// names in --referees are resolved again: referees that appear join "
          "the pool, those that vanish get no new matches");
ABSL_FLAG(int, max_parallel, 4,
          "matches in flight at once. A duplicate table that ends keeps its slot until the other "
          "tables of its deal have ended; with fewer slots than a deal has tables, a held slot "
          "runs a twin, which tells that a table ended (docs/security.md, \"Secret deals\")");
ABSL_FLAG(int, max_attempts, 5, "referees tried per match before it fails");
ABSL_FLAG(int, commit_delay_ms, 50,
          "a finished match is committed within this time, with the others that finished "
          "meanwhile in one transaction (0: each at once); a kill in between re-runs them");
ABSL_FLAG(std::string, referee_token, "",
          "token sent to the referees with every match (their --referee_token); default "
          "$TAROCK_REFEREE_TOKEN");
ABSL_FLAG(std::vector<std::string>, allow_bot_ranges, {},
          "address ranges (CIDR, comma separated) bot endpoints may be in although they are "
          "not globally reachable (loopback, private, link-local, metadata, documentation, "
          "benchmarking, reserved: IANA's special-purpose registries), which are refused "
          "otherwise; "
          "an arena whose --listen is loopback also allows 127.0.0.0/8 and ::1");
ABSL_FLAG(std::string, admin_token, "",
          "token needed for ladders, tournaments, tests and the audit log (default "
          "$TAROCK_ADMIN_TOKEN; empty: none, which an arena listening beyond loopback refuses "
          "to mean 'anyone': it then refuses every administrative call)");
ABSL_FLAG(double, calls_per_second, 20,
          "API calls (gRPC and HTTP) per second from one client address and with one token, "
          "bursts of twice as many; more get RESOURCE_EXHAUSTED / HTTP 429 with Retry-After "
          "(0: no limit)");
ABSL_FLAG(double, registrations_per_minute, 10,
          "bot registrations per minute from one client address, bursts of 5 (0: no limit)");
ABSL_FLAG(double, prefix_calls_per_second, 100,
          "API calls per second from one network (/24 IPv4, /64 IPv6), bursts of twice as "
          "many, besides the per-address limit (0: no limit)");
ABSL_FLAG(double, prefix_registrations_per_minute, 30,
          "bot registrations per minute from one network (/24 IPv4, /64 IPv6), bursts of 15 "
          "(0: no limit)");
ABSL_FLAG(std::vector<std::string>, rate_limit_exempt, std::vector<std::string>({"127.0.0.0/8", "::1"}),
          "client address ranges (CIDR) never rate limited, unless the request came through "
          "a trusted proxy (empty: limit everyone)");
ABSL_FLAG(std::vector<std::string>, trusted_proxies, {},
          "addresses or CIDR ranges of reverse proxies in front of the HTTP listener: only "
          "from them is the client address taken from X-Forwarded-For / Forwarded, and their "
          "requests are never exempt from rate limits (empty: trust no proxy)");
ABSL_FLAG(int, max_request_bytes, 1 << 20,
          "largest gRPC message and HTTP request body accepted (bytes)");
ABSL_FLAG(int64_t, max_upload_bytes, int64_t{32} << 20,
          "hosted bots: largest upload of a version (bytes; docs/hosting.md); the HTTP upload and "
          "Hosting.UploadVersionStream take it in pieces, refused as soon as the size or the "
          "running count passes it (the one-message UploadVersion stays below "
          "--max_request_bytes)");
ABSL_FLAG(int64_t, max_unpacked_bytes, int64_t{64} << 20,
          "hosted bots: largest unpacked size of a zip upload (bytes)");
ABSL_FLAG(int, max_package_files, 256, "hosted bots: most files in a zip upload");
ABSL_FLAG(int, max_large_uploads, 4,
          "hosted bots: HTTP uploads over --max_request_bytes read or handled at once (beyond: 503)");
ABSL_FLAG(int, versions_kept, 5, "hosted bots: versions kept with their content, per bot");
// Storage bounds (arena/store/storage_quota.h, docs/security.md "Limits"):
// registrations and uploads beyond them are refused before anything is stored.
ABSL_FLAG(int64_t, max_bots_per_owner, 100,
          "bots one owner may register (retired ones count; 0: no bound)");
ABSL_FLAG(int64_t, max_bots_per_network, 500,
          "bots that may be registered from one client network (/24 IPv4, /64 IPv6; 0: no bound)");
ABSL_FLAG(int64_t, max_versions_per_owner, 200,
          "hosted bots' versions stored with their content, over one owner's bots (0: no bound)");
ABSL_FLAG(int64_t, max_versions_per_network, 1000,
          "the same over the bots registered from one client network (0: no bound)");
ABSL_FLAG(int64_t, max_stored_bytes_per_owner, int64_t{256} << 20,
          "bytes of those versions, over one owner's bots (256 MiB; 0: no bound)");
ABSL_FLAG(int64_t, max_stored_bytes_per_network, int64_t{1} << 30,
          "bytes of those versions, over the bots registered from one client network (1 GiB; 0: no "
          "bound)");
ABSL_FLAG(int64_t, max_stored_bytes_total, int64_t{8} << 30,
          "bytes of those versions, over all bots together (8 GiB; 0: no bound)");
ABSL_FLAG(int, uploads_per_hour, 20, "hosted bots: uploads per bot and hour");
ABSL_FLAG(int, host_lease_s, 15,
          "hosted bots: a bot host that has not synced for this long loses its bots to another");
ABSL_FLAG(int, host_stale_s, 6,
          "hosted bots: a bot host that has not synced for this long (3 syncs) gets no new seats "
          "for its bots until it syncs again (a stalled host; at most --host_lease_s)");
ABSL_FLAG(int, host_account_wait_s, 10,
          "hosted bots: how long a finished match whose hosted seat timed out waits for its host's "
          "account of the seat's decisions; a timeout its bot was not slow on, or no account, voids "
          "the match (the host stalled: docs/hosting.md)");
ABSL_FLAG(std::string, public_address, "",
          "HOST:PORT where referees reach this arena's gRPC listener (its Bot service relays "
          "people's seats); empty: the bound --listen address (127.0.0.1 for a wildcard host)");
ABSL_FLAG(int64_t, play_decision_ms, 120000, "per-decision limit of every seat in play matches");
ABSL_FLAG(int, play_max_faults, 3, "faults after which a play match's seat is forfeited (0: never)");
ABSL_FLAG(int, play_per_client, 4,
          "play matches running at once from one client network (/24 IPv4, /64 IPv6; 0: no cap)");
ABSL_FLAG(int, play_per_visitor, 2,
          "play matches running at once for one visitor (one play cookie; 0: no cap)");
ABSL_FLAG(double, play_starts_per_hour, 30,
          "play matches one visitor may start per hour (a client network four times as many; "
          "0: no limit)");
ABSL_FLAG(int, play_hold_minutes, 30,
          "minutes a person's seat takes answers; then the referee plays it to the end (0: no limit)");
ABSL_FLAG(int, dial_in_wait_s, 60,
          "a match waits this long for an offline dial-in bot, and a tournament match this long "
          "for a benched (unreachable or unresponsive) bot, then fails saying so");
ABSL_FLAG(int, ladder_connect_timeout_ms, 3000,
          "how long the referee waits for a ladder match's bots to connect (0: the referee's "
          "--connect_timeout_ms); a bot not there by then is benched (arena/README.md); a match "
          "with a dial-in seat that may fall back to the relay waits --dial_in_join_wait_ms more");
ABSL_FLAG(int, ladder_timeouts_in_row, 3,
          "timeouts in a row that forfeit a bot's seat in a ladder match (0: never), so a bot "
          "that goes silent holds a ladder slot seconds, not minutes");
ABSL_FLAG(std::string, dial_in_route, "auto",
          "how dial-in bots play their seats (docs/dial-in.md, \"Routes\"): direct (bots whose "
          "SDK can join the referee itself with a seat ticket do; no relay on the decision's "
          "path, but bots must reach the referees' --listen port; older SDKs stay relayed), "
          "relay (through this arena; bots need to reach only the arena), or auto (direct, and "
          "a seat whose bot has not joined within --dial_in_join_wait_ms is relayed, as are "
          "that connection's next seats for --dial_in_direct_retry_s)");
ABSL_FLAG(int, dial_in_join_wait_ms, 3000,
          "with --dial_in_route=auto: how long a referee waits for a dial-in bot to join its "
          "seat before it plays the seat through this arena's relay");
ABSL_FLAG(int, dial_in_direct_retry_s, 300,
          "with --dial_in_route=auto: after a seat fell back to the relay, how long that bot "
          "connection's seats stay relayed before the direct route is tried again");
ABSL_FLAG(std::vector<std::string>, referee_bot_addresses, {},
          "with --dial_in_route=direct or auto: REFEREE=HOST:PORT pairs, the address dial-in bots "
          "use for a referee this arena knows by another (private) address");
ABSL_FLAG(int, gateway_max_per_address, 256, "open dial-in connections from one address");
ABSL_FLAG(int, gateway_keepalive_s, 20,
          "the arena pings each connection this often and closes it after 10 s without an answer");
ABSL_FLAG(int, drain_ms, 0,
          "after SIGTERM, report NOT_SERVING on the health service (grpc.health.v1) for this "
          "long before stopping (matches keep running meanwhile; those still running then run "
          "again at the next start)");
ABSL_FLAG(int, handshake_timeout_ms, 10000,
          "a connection to the gRPC port that has not completed its TLS and HTTP/2 handshake "
          "in this long is closed");
ABSL_FLAG(int, max_connection_idle_ms, 120000,
          "a connection to the gRPC port with no call open for this long is closed; a "
          "grpc.health.v1 Watch stream ends after this long too, so that none keeps a "
          "connection open");
ABSL_FLAG(int, listener_watchdog_s, 10,
          "probe the gRPC port over loopback this often; when 3 probes in a row go unanswered "
          "(gRPC stopped accepting, e.g. after running out of descriptors: grpc/grpc#20418) "
          "log an error and exit with status 70 so that systemd or Kubernetes restart the "
          "arena (0: no watchdog)");
ABSL_FLAG(bool, verify_ratings, false,
          "rebuild every rating from the stored results, compare with the stored ratings, exit");

namespace {
std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }


// The key the bots' referee secrets derive from (tarock/transport/referee_proof.h):
// DIR/referee-secret.key, 32 random bytes made on the first start (mode 0600).
absl::StatusOr<std::string> LoadOrMakeRefereeKey(const std::string& dir) {
  const std::string path = dir + "/referee-secret.key";
  std::ifstream in(path, std::ios::binary);
  if (in) {
    std::string key((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (key.size() < 16) return absl::DataLossError(absl::StrCat(path, " is too short"));
    return key;
  }
  std::string key(32, '\0');
  if (absl::Status s = tarock::arena::FillRandom(key.data(), key.size()); !s.ok()) return s;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create ", path));
  bool written = ::write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size());
  ::close(fd);
  if (!written) return absl::InternalError(absl::StrCat("cannot write ", path));
  return key;
}

// The services whose health this process reports besides the overall status.
constexpr std::initializer_list<const char*> kHealthServices = {
    "tarock.v1.Arena", "tarock.v1.Bot", "tarock.v1.BotGateway"};

int Fail(const std::string& message) {
  std::fprintf(stderr, "tarock-arena: %s\n", message.c_str());
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  tarock::SetProgramUsage(
      "tarock-arena --referees=HOST:PORT,... [--data_dir=DIR] [--listen=HOST:PORT]\n"
      "             [--database=sqlite:DIR|postgresql://...] [--http_listen=HOST:PORT] [FLAGS]\n"
      "The Tarock Arena server: keeps the registered bots, runs rating ladders and tournaments\n"
      "on a pool of tarock-referee processes, rates the bots, stores every result in SQLite\n"
      "under --data_dir or in the --database given (PostgreSQL: docs/database.md), and serves\n"
      "the Arena gRPC API (--listen; tarock-arena-cli talks to it), the web pages, and\n"
      "Prometheus /metrics (--http_listen). SIGINT or SIGTERM stop it; matches in flight run\n"
      "again at the next start. Plaintext only on loopback:\n"
      "elsewhere give --tls_cert/--tls_key (its listeners), --tls_ca (the referees' CA; the\n"
      "certificate is then also its client certificate), or --allow_plaintext.\n"
      "Referees by DNS: --referees=dns:///NAME:PORT stands for every address of NAME, looked\n"
      "up again every --referee_resolve_interval (a Kubernetes headless Service).\n"
      "  tarock-arena --referees=127.0.0.1:7701 --data_dir=arena-data");
  tarock::ParseCommandLine(argc, argv);
  if (absl::Status s = tarock::logging::ApplyLogFlags(); !s.ok()) return Fail(std::string(s.message()));
  // Debian's Abseil is built with Mutex deadlock detection on, which builds a
  // lock graph on every acquisition: a real cost on the hot path of a server
  // (it showed in profiles). The unit tests keep it on.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // Many bots, browsers and referees: as many descriptors as the hard limit
  // (LimitNOFILE in the units) allows.
  if (const long nofile = tarock::net::RaiseOpenFileLimit(); nofile >= 0 && nofile < 4096)
    tarock::logging::Warning("arena", "few file descriptors (the hard limit): connections beyond "
                             "them are refused", {{"nofile", static_cast<int64_t>(nofile)}});
  const std::string dir = absl::GetFlag(FLAGS_data_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Fail(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  std::string database = absl::GetFlag(FLAGS_database);
  if (database.empty()) database = "sqlite:" + dir;
  absl::StatusOr<std::unique_ptr<tarock::arena::Store>> store = tarock::arena::OpenStore(database);
  if (!store.ok()) return Fail(std::string(store.status().message()));
  if (absl::GetFlag(FLAGS_verify_ratings)) {
    absl::Status s = tarock::arena::VerifyRatings(**store, tarock::arena::RatingModel());
    if (!s.ok()) return Fail(std::string(s.message()));
    std::printf("ratings verified: rebuilding from %lld stored results reproduces every stored rating\n",
                static_cast<long long>((*store)->CountMatches("done")));
    return 0;
  }
  if (absl::GetFlag(FLAGS_referees).empty()) return Fail("give at least one --referees address");
  // Refused before anything starts, so the error is the only line.
  const std::string http_listen = absl::GetFlag(FLAGS_http_listen);
  const tarock::transport::TransportOptions tls = tarock::transport::TransportOptionsFromFlags();
  const bool http_beyond_loopback =
      !http_listen.empty() && !tarock::transport::IsLoopbackAddress(http_listen);
  if (http_beyond_loopback && tls.cert_file.empty() && !tls.allow_plaintext)
    return Fail(absl::StrCat("refusing to serve HTTP in plaintext on ", http_listen,
                             ", which is not a loopback address: give --tls_cert and --tls_key "
                             "(HTTPS), or --allow_plaintext on a trusted network"));

  prometheus::Registry registry;
  tarock::metrics::GrpcMetrics grpc_metrics(&registry);  // the gRPC server's and the referee calls'
  // A host reports a seat's log when its table has ended: counted (started
  // too) once that end is public (HostingService).
  grpc_metrics.DeferServerStart("ReportSeatLog");
  // A relayed seat's stream (Bot.Play) is held with its table while the deal
  // is sealed: counted as started with its status too, or the started count
  // would tell how many of a restarted deal's tables had ended.
  grpc_metrics.DeferServerStart("Play");
  absl::StatusOr<tarock::transport::Transport> transport = tarock::transport::Transport::FromFlags();
  if (!transport.ok()) return Fail(std::string(transport.status().message()));
  absl::StatusOr<tarock::arena::RefereeResolver> resolver =
      tarock::arena::RefereeResolver::Create(absl::GetFlag(FLAGS_referees));
  if (!resolver.ok()) return Fail(std::string(resolver.status().message()));
  // The pool from the referee list, each address checked against the transport
  // policy (plaintext only to loopback...): refused at start, since the flags
  // are wrong; later (a name resolving somewhere new) dropped with a warning.
  auto resolve_referees = [&](bool at_start) -> absl::StatusOr<std::vector<std::string>> {
    std::vector<std::string> errors;
    std::vector<std::string> pool;
    for (std::string& address : resolver->Resolve(&errors)) {
      grpc::ChannelArguments unused;
      auto credentials = transport->ChannelCredentials(address, &unused);
      if (credentials.ok()) {
        pool.push_back(std::move(address));
      } else if (at_start) {
        return credentials.status();
      } else {
        errors.push_back(absl::StrCat(address, ": ", credentials.status().message()));
      }
    }
    for (const std::string& e : errors)
      tarock::logging::Warning("arena", "referee resolution", {{"error", e}});
    return pool;
  };
  absl::StatusOr<std::vector<std::string>> referee_pool = resolve_referees(true);
  if (!referee_pool.ok()) return Fail(std::string(referee_pool.status().message()));
  tarock::arena::GrpcRefereeClient client(
      *transport,
      tarock::transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_referee_token), "TAROCK_REFEREE_TOKEN"),
      &grpc_metrics);
  tarock::arena::SchedulerOptions options;
  options.storage.bots_per_owner = absl::GetFlag(FLAGS_max_bots_per_owner);
  options.storage.bots_per_network = absl::GetFlag(FLAGS_max_bots_per_network);
  options.storage.versions_per_owner = absl::GetFlag(FLAGS_max_versions_per_owner);
  options.storage.versions_per_network = absl::GetFlag(FLAGS_max_versions_per_network);
  options.storage.bytes_per_owner = absl::GetFlag(FLAGS_max_stored_bytes_per_owner);
  options.storage.bytes_per_network = absl::GetFlag(FLAGS_max_stored_bytes_per_network);
  options.storage.bytes_total = absl::GetFlag(FLAGS_max_stored_bytes_total);
  options.referees = *std::move(referee_pool);
  options.max_parallel = absl::GetFlag(FLAGS_max_parallel);
  options.max_attempts = absl::GetFlag(FLAGS_max_attempts);
  options.ladder_connect_timeout =
      absl::Milliseconds(std::max(0, absl::GetFlag(FLAGS_ladder_connect_timeout_ms)));
  options.ladder_timeouts_in_row = std::max(0, absl::GetFlag(FLAGS_ladder_timeouts_in_row));
  options.admin_token =
      tarock::transport::SecretFromFlagOrEnv(absl::GetFlag(FLAGS_admin_token), "TAROCK_ADMIN_TOKEN");
  options.public_address = absl::GetFlag(FLAGS_public_address).empty() ? absl::GetFlag(FLAGS_listen)
                                                                        : absl::GetFlag(FLAGS_public_address);
  options.public_tls = !tls.cert_file.empty();
  const bool public_listener = !tarock::transport::IsLoopbackAddress(absl::GetFlag(FLAGS_listen)) ||
                               (!absl::GetFlag(FLAGS_http_listen).empty() &&
                                !tarock::transport::IsLoopbackAddress(absl::GetFlag(FLAGS_http_listen)));
  if (public_listener && options.admin_token.empty()) {
    options.refuse_admin_without_token = true;
    std::fprintf(stderr,
                 "tarock-arena: warning: listening beyond loopback without --admin_token: "
                 "ladders, tournaments, tests and the audit log are refused to everyone\n");
  }
  absl::StatusOr<tarock::net::EndpointPolicy> policy = tarock::net::EndpointPolicy::ForListener(
      absl::GetFlag(FLAGS_allow_bot_ranges),
      tarock::transport::IsLoopbackAddress(absl::GetFlag(FLAGS_listen)));
  if (!policy.ok()) return Fail(std::string(policy.status().message()));
  options.endpoint_policy = *std::move(policy);
  absl::StatusOr<std::string> referee_key = LoadOrMakeRefereeKey(dir);
  if (!referee_key.ok()) return Fail(std::string(referee_key.status().message()));
  options.referee_secret_key = *referee_key;
  options.commit_delay = absl::Milliseconds(absl::GetFlag(FLAGS_commit_delay_ms));
  if (const int lease_s = absl::GetFlag(FLAGS_lease_s); lease_s > 0) {
    // Unique among the arenas sharing the database: the host, the process
    // and a random part (a pid can come back after a reboot).
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    options.lease = absl::Seconds(lease_s);
    absl::StatusOr<std::string> part = tarock::arena::NewToken();
    if (!part.ok()) return Fail(std::string(part.status().message()));
    options.lease_owner = absl::StrCat(host, ":", getpid(), ":", part->substr(0, 8));
  } else if (absl::GetFlag(FLAGS_lease_s) < 0) {
    return Fail("--lease_s must not be negative");
  }
  tarock::arena::Scheduler scheduler(store->get(), &client, options, &registry);
  tarock::arena::AdmissionOptions admission_options;
  admission_options.calls_per_second = absl::GetFlag(FLAGS_calls_per_second);
  admission_options.registrations_per_minute = absl::GetFlag(FLAGS_registrations_per_minute);
  admission_options.prefix_calls_per_second = absl::GetFlag(FLAGS_prefix_calls_per_second);
  admission_options.prefix_registrations_per_minute =
      absl::GetFlag(FLAGS_prefix_registrations_per_minute);
  admission_options.exempt_ranges = absl::GetFlag(FLAGS_rate_limit_exempt);
  absl::StatusOr<std::unique_ptr<tarock::arena::Admission>> admission =
      tarock::arena::Admission::Create(admission_options);
  if (!admission.ok()) return Fail(std::string(admission.status().message()));
  tarock::arena::ArenaService service(&scheduler, store->get(), admission->get());
  const int max_request_bytes = std::max(4096, absl::GetFlag(FLAGS_max_request_bytes));

  // grpc.health.v1.Health for probes: NOT_SERVING until the scheduler runs,
  // SERVING then, NOT_SERVING again while draining and stopping. Every call
  // passes the rate limits of any other unauthenticated call, and Watch
  // streams are bounded per client network and end after the idle time, so
  // none keeps a stranger's connection open (issue 44).
  const absl::Duration max_idle =
      absl::Milliseconds(std::max(1000, absl::GetFlag(FLAGS_max_connection_idle_ms)));
  tarock::HealthServiceOptions health_options;
  health_options.max_watch = max_idle;
  health_options.admit = [admission = admission->get()](grpc::CallbackServerContext* context) {
    absl::Duration retry_after;
    absl::Status s = admission->Admit(tarock::arena::Admission::AddressOfGrpcPeer(context->peer()),
                                      /*proxied=*/false, "", tarock::arena::Admission::Kind::kCall,
                                      &retry_after);
    if (s.ok()) return grpc::Status::OK;
    context->AddTrailingMetadata("retry-after", absl::StrCat(absl::ToInt64Seconds(retry_after)));
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, std::string(s.message()));
  };
  tarock::HealthService health(health_options);
  grpc::ServerBuilder builder;
  int port = 0;
  const std::string listen = absl::GetFlag(FLAGS_listen);
  auto credentials = transport->ServerCredentials(listen);
  if (!credentials.ok()) return Fail(std::string(credentials.status().message()));
  builder.AddListeningPort(listen, *credentials, &port);
  builder.SetMaxReceiveMessageSize(max_request_bytes);
  // Connections that never finish their handshake are closed (gRPC's default: 120 s).
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
                             std::max(1000, absl::GetFlag(FLAGS_handshake_timeout_ms)));
  builder.RegisterService(&service);
  builder.RegisterService(&health);
  // The Bot service referees dial for seats this arena relays (a person in
  // the browser): arena/play.
  tarock::arena::play::SeatRelay relay;
  tarock::arena::play::BotRelayService relay_service(&relay, &grpc_metrics);
  builder.RegisterService(&relay_service);
  // Bots that dial in (docs/dial-in.md): the BotGateway service, its seats on the same relay.
  tarock::arena::gateway::GatewayOptions gateway_options;
  gateway_options.max_connections_per_address = absl::GetFlag(FLAGS_gateway_max_per_address);
  gateway_options.keepalive = absl::Seconds(absl::GetFlag(FLAGS_gateway_keepalive_s));
  gateway_options.max_idle = max_idle;
  tarock::arena::gateway::HubOptions hub_options;
  hub_options.keepalive = gateway_options.keepalive;
  hub_options.direct_retry = absl::Seconds(std::max(1, absl::GetFlag(FLAGS_dial_in_direct_retry_s)));
  tarock::arena::gateway::DialInHub hub(&relay, hub_options);
  tarock::arena::gateway::BotGatewayService gateway(
      &hub, tarock::arena::gateway::StoreAuthenticator(store->get()), gateway_options);
  builder.RegisterService(&gateway);
  tarock::arena::gateway::BotGatewayService::ConfigureServer(gateway_options, &builder);
  // Hosted bots (docs/hosting.md): versions, bot hosts, and the gateway
  // connections hosts open for the bots they hold.
  tarock::arena::HostingOptions hosting_options;
  hosting_options.package.max_upload_bytes =
      std::max<int64_t>(1, absl::GetFlag(FLAGS_max_upload_bytes));
  hosting_options.package.max_unpacked_bytes =
      std::max<int64_t>(1, absl::GetFlag(FLAGS_max_unpacked_bytes));
  hosting_options.package.max_files = std::max(1, absl::GetFlag(FLAGS_max_package_files));
  hosting_options.versions_kept = std::max(1, absl::GetFlag(FLAGS_versions_kept));
  hosting_options.storage = options.storage;
  hosting_options.uploads_per_hour = std::max(0, absl::GetFlag(FLAGS_uploads_per_hour));
  hosting_options.host_lease = absl::Seconds(std::max(2, absl::GetFlag(FLAGS_host_lease_s)));
  hosting_options.host_stale =
      std::min(hosting_options.host_lease, absl::Seconds(std::max(1, absl::GetFlag(FLAGS_host_stale_s))));
  tarock::arena::HostedBots hosted(store->get(), hosting_options);
  // A stalled host's bots get no new seats (the hook is cleared before
  // `hosted` goes away: declared after it, destroyed before it).
  hub.SetHostSyncing([&hosted](int64_t bot) { return hosted.HostSyncing(bot); });
  struct ClearHostSyncing {
    tarock::arena::gateway::DialInHub* hub;
    ~ClearHostSyncing() { hub->SetHostSyncing(nullptr); }
  } clear_host_syncing{&hub};
  // A bot held at its frozen version (its event's final runs): its own
  // token cannot replace the host that plays it (cleared before `scheduler`
  // goes away).
  hub.SetFrozen([&scheduler](int64_t bot) { return scheduler.HeldAtFreeze(bot); });
  struct ClearFrozen {
    tarock::arena::gateway::DialInHub* hub;
    ~ClearFrozen() { hub->SetFrozen(nullptr); }
  } clear_frozen{&hub};
  tarock::arena::HostingService hosting_service(&hosted, &scheduler, store->get(),
                                                admission->get(), &grpc_metrics);
  builder.RegisterService(&hosting_service);
  gateway.SetHostedAuthenticator(
      [&hosted](const std::string& token, const std::string& bot, int64_t* host_id) {
        return hosted.AuthenticateHostedBot(token, bot, host_id);
      });
  // A host reports only on the seats the arena gave its connections, once an
  // attempt (the hub outlives `hosted`).
  hosted.SetSeatReportClaim([&hub](const std::string& match, int seat, int64_t host_id) {
    return hub.ClaimSeatReport(match, seat, host_id);
  });
  scheduler.SetHostedVersions([&hosted](int64_t version, int64_t bot) {
    return hosted.VersionOfBot(version, bot);
  });
  scheduler.SetHostedSeatAccounts(
      [&hosted](const std::string& match, int seat, absl::Time deadline) {
        return hosted.AwaitSeatAccount(match, seat, deadline);
      },
      absl::Seconds(std::max(1, absl::GetFlag(FLAGS_host_account_wait_s))));
  // One thread waiting for requests (more are started while requests run):
  // gRPC's pollers also carry the referee calls' network events to the
  // workers, and every extra poller is extra wake-ups per match.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS, 1);
  builder.experimental().SetInterceptorCreators(grpc_metrics.ServerInterceptors());
  // The store's state before any door opens: a sealed deal's tables look
  // alike from the first request (Scheduler::Load).
  scheduler.Load();
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) return Fail(absl::StrCat("cannot listen on ", listen));
  health.SetServing(false, kHealthServices);

  tarock::arena::play::PlayOptions play_options;
  play_options.relay_endpoint = absl::GetFlag(FLAGS_public_address);
  if (play_options.relay_endpoint.empty()) {
    std::string host = tarock::metrics::SplitHostPort(listen).first;
    if (host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::") host = "127.0.0.1";
    play_options.relay_endpoint = absl::StrCat(host, ":", port);
  }
  scheduler.SetRelayGate(&relay);  // only each attempt's referee opens a relayed seat
  // Benched listening bots are probed with gRPC health checks (bot_health.h).
  tarock::arena::GrpcBotProber prober(*transport);
  scheduler.SetBotProber(&prober);
  scheduler.SetDialIn(&hub, play_options.relay_endpoint,
                      absl::Seconds(absl::GetFlag(FLAGS_dial_in_wait_s)));
  if (const std::string route = absl::GetFlag(FLAGS_dial_in_route);
      route == "direct" || route == "auto") {
    std::map<std::string, std::string> bot_addresses;
    for (const std::string& pair : absl::GetFlag(FLAGS_referee_bot_addresses)) {
      std::vector<std::string> parts = absl::StrSplit(pair, absl::MaxSplits('=', 1));
      if (parts.size() != 2 || parts[0].empty() || parts[1].empty())
        return Fail(absl::StrCat("--referee_bot_addresses: '", pair, "' is not REFEREE=HOST:PORT"));
      bot_addresses[parts[0]] = parts[1];
    }
    const int join_wait_ms = absl::GetFlag(FLAGS_dial_in_join_wait_ms);
    if (route == "auto" && join_wait_ms <= 0)
      return Fail("--dial_in_join_wait_ms must be positive with --dial_in_route=auto");
    scheduler.SetDirectDialIn(std::move(bot_addresses), route == "auto"
                                                            ? absl::Milliseconds(join_wait_ms)
                                                            : absl::ZeroDuration());
  } else if (route != "relay") {
    return Fail(absl::StrCat("--dial_in_route must be auto, direct or relay, not '", route, "'"));
  }
  play_options.per_decision_ms = absl::GetFlag(FLAGS_play_decision_ms);
  play_options.max_faults = absl::GetFlag(FLAGS_play_max_faults);
  play_options.max_per_client = absl::GetFlag(FLAGS_play_per_client);
  play_options.max_per_visitor = absl::GetFlag(FLAGS_play_per_visitor);
  play_options.starts_per_hour = absl::GetFlag(FLAGS_play_starts_per_hour);
  // Its listener is HTTPS then (plaintext only with --allow_plaintext).
  play_options.secure_cookie = http_beyond_loopback && !tls.cert_file.empty();
  play_options.max_hold = absl::Minutes(absl::GetFlag(FLAGS_play_hold_minutes));
  tarock::arena::play::PlayService play(&scheduler, &relay, play_options);

  // The HTTP listener: beyond loopback it is HTTPS with the gRPC listener's
  // certificate (or refused without one, unless --allow_plaintext); on
  // loopback it is plain HTTP, for a local Prometheus or a TLS reverse proxy.
  tarock::metrics::HttpServerOptions http_options;
  if (http_beyond_loopback) {
    http_options.tls_cert_file = tls.cert_file;
    http_options.tls_key_file = tls.key_file;
  }
  http_options.max_body_bytes = max_request_bytes;
  http_options.max_large_bodies = std::max(1, absl::GetFlag(FLAGS_max_large_uploads));
  http_options.trusted_proxies = absl::GetFlag(FLAGS_trusted_proxies);
  http_options.admit = [admission = admission->get()](const tarock::metrics::HttpRequest& r)
      -> std::optional<tarock::metrics::HttpResponse> {
    absl::Duration retry_after;
    // via_proxy: the request came through a trusted proxy (--trusted_proxies)
    // and remote_addr is the client it forwarded for; no exemption then.
    absl::Status s = admission->Admit(r.remote_addr, r.via_proxy, "",
                                      tarock::arena::Admission::Kind::kCall, &retry_after);
    if (s.ok()) return std::nullopt;
    tarock::metrics::HttpResponse refused = tarock::arena::JsonError(429, std::string(s.message()));
    refused.headers.push_back({"Retry-After", absl::StrCat(absl::ToInt64Seconds(retry_after))});
    return refused;
  };
  tarock::metrics::HttpServer http(http_options);
  int http_port = 0;
  if (!http_listen.empty()) {
    tarock::arena::play::RegisterPlayApi(&play, &http);
    tarock::arena::RegisterHttpApi(&scheduler, &registry, &http);
    tarock::arena::RegisterHostingHttpApi(&hosted, store->get(), &scheduler, admission->get(), &http);
    auto [host, p] = tarock::metrics::SplitHostPort(http_listen);
    absl::StatusOr<int> bound = http.Start(host, p);
    if (!bound.ok()) return Fail(std::string(bound.status().message()));
    http_port = *bound;
  }
  if (absl::Status s = scheduler.Start(); !s.ok()) return Fail(std::string(s.message()));
  health.SetServing(true, kHealthServices);
  std::printf("arena listening on %s:%d\n", tarock::metrics::SplitHostPort(listen).first.c_str(), port);
  if (http_port)
    std::printf("http on %s://%s:%d\n", http.tls() ? "https" : "http",
                tarock::metrics::SplitHostPort(http_listen).first.c_str(), http_port);
  std::fflush(stdout);
  tarock::logging::Info("arena", "listening",
                        {{"grpc", absl::StrCat(tarock::metrics::SplitHostPort(listen).first, ":", port)},
                         {"http_port", http_port}});

  // gRPC 1.51 can stop accepting for good after EMFILE (grpc/grpc#20418):
  // a dead listener ends the process, for the service manager to restart.
  std::unique_ptr<tarock::net::ListenerWatchdog> watchdog;
  if (const int every_s = absl::GetFlag(FLAGS_listener_watchdog_s); every_s > 0) {
    tarock::net::ListenerWatchdogOptions o;
    o.interval = absl::Seconds(every_s);
    o.timeout = std::min(absl::Seconds(5), o.interval);
    watchdog = std::make_unique<tarock::net::ListenerWatchdog>(
        "arena grpc",
        tarock::net::ProbeHostFor(tarock::metrics::SplitHostPort(listen).first), port, o,
        [] { std::_Exit(70); });
  }

  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  // dns:/// referees: looked up again every interval (getaddrinfo blocks this
  // thread only, which has nothing else to do).
  const absl::Duration resolve_interval =
      std::max(absl::GetFlag(FLAGS_referee_resolve_interval), absl::Milliseconds(100));
  absl::Time next_resolve = absl::Now() + resolve_interval;
  while (!g_stop.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (resolver->has_names() && absl::Now() >= next_resolve) {
      if (absl::StatusOr<std::vector<std::string>> pool = resolve_referees(false); pool.ok())
        scheduler.SetReferees(*std::move(pool));
      next_resolve = absl::Now() + resolve_interval;
    }
  }
  health.SetServing(false, kHealthServices);
  if (const int drain_ms = absl::GetFlag(FLAGS_drain_ms); drain_ms > 0) {
    tarock::logging::Info("arena", "draining", {{"drain_ms", drain_ms}});
    std::this_thread::sleep_for(std::chrono::milliseconds(drain_ms));
  }
  tarock::logging::Info("arena", "stopping");
  if (watchdog) watchdog->Stop();
  // The bots' gateway streams end now, not at the shutdown's deadline
  // (SIGTERM ends the arena within 2 s; tests/doors_test.sh).
  hub.CloseAll();
  scheduler.Stop();
  health.Shutdown();  // open Watch streams end now, not at the shutdown's deadline
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  http.Stop();
  return 0;
}
