// Process-level tests of the referee: real bot processes on loopback, the match
// runner over gRPC, every kind of bad bot, a spy that checks no hidden card ever
// reaches it, the tarock-referee process with its Referee service and metrics,
// and every match record replayed to the same scores.

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "referee/core/match_runner.h"
#include "referee/engine/deal_seed.h"
#include "referee/engine/random.h"
#include "referee/engine/record.h"
#include "referee/engine/registry.h"
#include "referee/server/grpc_bot_connection.h"
#include "referee/tools/subprocess.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock {
namespace {

using json = nlohmann::json;

const std::string kBin = std::string(TAROCK_BINARY_DIR) + "/bin/";

// A bot process on a free loopback port, stopped when it goes out of scope.
struct BotProcess {
  std::string endpoint;
  std::unique_ptr<Subprocess> process;
};

BotProcess StartBot(const std::string& binary, std::vector<std::string> args = {}) {
  BotProcess b;
  absl::StatusOr<int> port = FreeLoopbackPort();
  EXPECT_TRUE(port.ok());
  b.endpoint = absl::StrCat("127.0.0.1:", *port);
  std::vector<std::string> argv = {kBin + binary, "--listen", b.endpoint};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<std::unique_ptr<Subprocess>> p = Subprocess::Start(argv);
  EXPECT_TRUE(p.ok()) << p.status();
  b.process = std::move(*p);
  EXPECT_TRUE(WaitForPort("127.0.0.1", *port, absl::Now() + absl::Seconds(10)));
  return b;
}

v1::MatchSpec Spec(const std::string& variant, const std::vector<std::string>& endpoints,
                   int hands, uint64_t seed) {
  v1::MatchSpec spec;
  spec.set_match_id(absl::StrCat("test-", seed));
  spec.set_variant(variant);
  spec.set_num_hands(hands);
  spec.set_seed(seed);
  for (size_t i = 0; i < endpoints.size(); ++i) {
    v1::SeatSpec* s = spec.add_seats();
    s->set_name(absl::StrCat("bot", i));
    s->set_endpoint(endpoints[i]);
  }
  spec.mutable_time_control()->set_per_decision_ms(5000);
  return spec;
}

// Replays every hand of a match record and checks its recorded scores.
void ExpectRecordReplays(const std::string& record_json, int expected_hands) {
  absl::StatusOr<std::vector<HandRecord>> hands = ParseRecords(record_json);
  ASSERT_TRUE(hands.ok()) << hands.status();
  int played = 0;
  json record = json::parse(record_json);
  for (size_t i = 0; i < hands->size(); ++i) {
    absl::StatusOr<Replay> replay = ReplayRecord((*hands)[i]);
    ASSERT_TRUE(replay.ok()) << "hand " << i << ": " << replay.status();
    ASSERT_TRUE(replay->state->IsTerminal()) << "hand " << i;
    ASSERT_TRUE((*hands)[i].scores.has_value());
    EXPECT_EQ(*(*hands)[i].scores, replay->state->Result().scores) << "hand " << i;
    const json& deal = record["deals"][i];
    EXPECT_EQ(deal["decision_ms"].size(), deal["actions"].size()) << "hand " << i;
    if (!replay->state->Result().redeal) ++played;
  }
  EXPECT_EQ(played, expected_hands);
}

struct Outcome {
  absl::StatusOr<v1::MatchFinished> finished;
  std::vector<v1::Fault> faults;  // as streamed
  int hands_streamed = 0;
};

Outcome RunMatch(const v1::MatchSpec& spec, RefereeOptions options = {}) {
  GrpcBotConnector connector;
  prometheus::Registry registry;
  RefereeMetrics metrics(&registry);
  MatchRunner runner(options, &connector, &metrics);
  Outcome out;
  out.finished = runner.Run(spec, [&](const v1::MatchEvent& e) {
    if (e.has_fault()) out.faults.push_back(e.fault());
    if (e.has_hand_finished() && !e.hand_finished().redeal()) ++out.hands_streamed;
  });
  return out;
}

TEST(RefereeTest, FullMatchBetweenRandomBotProcesses) {
  std::vector<BotProcess> bots;
  std::vector<std::string> endpoints;
  for (int i = 0; i < 4; ++i) {
    bots.push_back(StartBot("tarock-bot-random", {absl::StrCat("--seed=", i + 1)}));
    endpoints.push_back(bots.back().endpoint);
  }
  Outcome o = RunMatch(Spec("slovenian-4p", endpoints, 12, 77));
  ASSERT_TRUE(o.finished.ok()) << o.finished.status();
  EXPECT_TRUE(o.faults.empty());
  EXPECT_EQ(o.hands_streamed, 12);
  EXPECT_EQ(o.finished->hands(), 12);
  for (const v1::SeatSummary& s : o.finished->seats()) {
    EXPECT_EQ(s.faults(), 0);
    EXPECT_FALSE(s.forfeited());
    EXPECT_GT(s.decisions(), 0);
    EXPECT_EQ(s.hello_name(), "random");
  }
  int64_t sum = 0;
  for (int64_t t : o.finished->totals()) sum += t;
  json record = json::parse(o.finished->record_json());
  EXPECT_EQ(record["variant"], "slovenian-4p");
  EXPECT_EQ(record["seed"], 77);
  EXPECT_EQ(record["bots"], json({"bot0", "bot1", "bot2", "bot3"}));
  ExpectRecordReplays(o.finished->record_json(), 12);
}

// One misbehaving bot at seat 1 against three good ones.
struct FaultCase {
  std::string mode;
  std::vector<std::string> args;
  int64_t per_decision_ms;
  int max_faults;
  v1::FaultKind first_kind;  // the kind of the first fault
  v1::FaultKind later_kind;  // the kind of every later fault
  bool forfeited;
};

class FaultTest : public ::testing::TestWithParam<FaultCase> {};

TEST_P(FaultTest, MatchCompletesAndEveryFaultIsRecorded) {
  const FaultCase& c = GetParam();
  std::vector<BotProcess> bots;
  std::vector<std::string> endpoints;
  for (int i = 0; i < 4; ++i) {
    std::vector<std::string> args = {"--mode", i == 1 ? c.mode : "good"};
    if (i == 1) args.insert(args.end(), c.args.begin(), c.args.end());
    bots.push_back(StartBot("faulty_bot", args));
    endpoints.push_back(bots.back().endpoint);
  }
  v1::MatchSpec spec = Spec("slovenian-4p", endpoints, 4, 11);
  spec.mutable_time_control()->set_per_decision_ms(c.per_decision_ms);
  spec.mutable_fault_policy()->set_max_faults(c.max_faults);
  const absl::Time start = absl::Now();
  Outcome o = RunMatch(spec);
  ASSERT_TRUE(o.finished.ok()) << o.finished.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(60));
  ASSERT_FALSE(o.faults.empty());
  for (size_t i = 0; i < o.faults.size(); ++i) {
    const v1::Fault& f = o.faults[i];
    EXPECT_EQ(f.seat(), 1) << f.DebugString();
    EXPECT_EQ(f.kind(), i == 0 ? c.first_kind : c.later_kind) << i << ": " << f.DebugString();
    EXPECT_FALSE(f.fallback_action().empty());
  }
  const v1::SeatSummary& bad = o.finished->seats(1);
  EXPECT_EQ(bad.faults(), static_cast<int>(o.faults.size()));
  EXPECT_EQ(bad.forfeited(), c.forfeited);
  if (c.max_faults > 0) {
    EXPECT_LE(bad.faults(), c.max_faults);
  }
  for (int s : {0, 2, 3}) EXPECT_EQ(o.finished->seats(s).faults(), 0) << "seat " << s;
  json record = json::parse(o.finished->record_json());
  EXPECT_EQ(record["faults"].size(), o.faults.size());
  ExpectRecordReplays(o.finished->record_json(), 4);
}

INSTANTIATE_TEST_SUITE_P(
    Bots, FaultTest,
    ::testing::Values(
        FaultCase{"late", {"--after=2", "--every=6", "--delay_ms=400"}, 150, 0,
                  v1::FAULT_KIND_TIMEOUT, v1::FAULT_KIND_TIMEOUT, false},
        FaultCase{"illegal", {"--after=1", "--every=5"}, 5000, 0,
                  v1::FAULT_KIND_ILLEGAL_ACTION, v1::FAULT_KIND_ILLEGAL_ACTION, false},
        FaultCase{"garbage", {"--after=3", "--every=4"}, 5000, 0, v1::FAULT_KIND_MALFORMED,
                  v1::FAULT_KIND_MALFORMED, false},
        FaultCase{"wrong_id", {"--after=2", "--every=7"}, 5000, 0, v1::FAULT_KIND_MALFORMED,
                  v1::FAULT_KIND_MALFORMED, false},
        FaultCase{"oversized", {"--after=4", "--every=1000"}, 5000, 5, v1::FAULT_KIND_MALFORMED,
                  v1::FAULT_KIND_DISCONNECT, true},
        FaultCase{"silent", {"--after=3"}, 100, 4, v1::FAULT_KIND_TIMEOUT,
                  v1::FAULT_KIND_TIMEOUT, true},
        FaultCase{"crash", {"--after=5"}, 5000, 3, v1::FAULT_KIND_DISCONNECT,
                  v1::FAULT_KIND_DISCONNECT, true},
        FaultCase{"drop", {"--after=5"}, 5000, 0, v1::FAULT_KIND_DISCONNECT,
                  v1::FAULT_KIND_DISCONNECT, false}),
    [](const ::testing::TestParamInfo<FaultCase>& info) { return info.param.mode; });

TEST(RefereeTest, ForfeitedBotGetsNoMoreRequestsAndTheMatchEnds) {
  std::vector<BotProcess> bots;
  std::vector<std::string> endpoints;
  for (int i = 0; i < 4; ++i) {
    bots.push_back(StartBot("faulty_bot", {"--mode", i == 2 ? "illegal" : "good"}));
    endpoints.push_back(bots.back().endpoint);
  }
  v1::MatchSpec spec = Spec("slovenian-4p", endpoints, 8, 5);
  spec.mutable_fault_policy()->set_max_faults(3);
  Outcome o = RunMatch(spec);
  ASSERT_TRUE(o.finished.ok()) << o.finished.status();
  EXPECT_EQ(o.faults.size(), 3u);
  EXPECT_TRUE(o.finished->seats(2).forfeited());
  EXPECT_EQ(o.finished->seats(2).decisions(), 3);
  ExpectRecordReplays(o.finished->record_json(), 8);
}

TEST(RefereeTest, ABotSilentForTimeoutsInARowIsForfeited) {
  // FaultPolicy.max_timeouts_in_row (issue 30): a bot that goes silent
  // costs that many timeouts, not one per decision of the match.
  std::vector<BotProcess> bots;
  std::vector<std::string> endpoints;
  for (int i = 0; i < 4; ++i) {
    bots.push_back(StartBot("faulty_bot", i == 1 ? std::vector<std::string>{"--mode", "silent", "--after", "2"}
                                                  : std::vector<std::string>{"--mode", "good"}));
    endpoints.push_back(bots.back().endpoint);
  }
  v1::MatchSpec spec = Spec("slovenian-4p", endpoints, 4, 9);
  spec.mutable_time_control()->set_per_decision_ms(200);
  spec.mutable_time_control()->set_grace_ms(50);
  spec.mutable_fault_policy()->set_max_timeouts_in_row(3);
  Outcome o = RunMatch(spec);
  ASSERT_TRUE(o.finished.ok()) << o.finished.status();
  EXPECT_TRUE(o.finished->seats(1).forfeited());
  EXPECT_EQ(o.finished->seats(1).faults(), 3);
  EXPECT_EQ(o.finished->seats(1).decisions(), 5);  // 2 answered, 3 timed out
  for (const v1::Fault& f : o.faults) EXPECT_EQ(f.kind(), v1::FAULT_KIND_TIMEOUT);
  ExpectRecordReplays(o.finished->record_json(), 4);
}

TEST(RefereeTest, TheSpecCanShortenTheConnectTimeout) {
  BotProcess good = StartBot("tarock-bot-random");
  // A port that accepts connections but never speaks HTTP/2 (a stopped bot).
  int mute = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(mute, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(mute, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(mute, 16), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(getsockname(mute, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string stopped = absl::StrCat("127.0.0.1:", ntohs(addr.sin_port));
  v1::MatchSpec spec = Spec("slovenian-4p", {good.endpoint, stopped, good.endpoint, good.endpoint}, 4, 1);
  spec.set_connect_timeout_ms(700);
  RefereeOptions options;
  options.connect_timeout = absl::Seconds(30);
  const absl::Time start = absl::Now();
  Outcome o = RunMatch(spec, options);
  const absl::Duration took = absl::Now() - start;
  close(mute);
  ASSERT_FALSE(o.finished.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(o.finished.status())) << o.finished.status();
  EXPECT_TRUE(absl::StrContains(o.finished.status().message(), "seat 1")) << o.finished.status();
  EXPECT_GE(took, absl::Milliseconds(600));
  EXPECT_LT(took, absl::Seconds(20));  // not the referee's 30 s
}

TEST(RefereeTest, UnreachableBotFailsTheMatchAtOnceNamingIt) {
  BotProcess good = StartBot("tarock-bot-random");
  absl::StatusOr<int> dead = FreeLoopbackPort();
  ASSERT_TRUE(dead.ok());
  const std::string nobody = absl::StrCat("127.0.0.1:", *dead);
  RefereeOptions options;
  options.connect_timeout = absl::Seconds(1);
  const absl::Time start = absl::Now();
  Outcome o = RunMatch(Spec("slovenian-4p", {good.endpoint, good.endpoint, nobody, good.endpoint}, 4, 1),
                  options);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  ASSERT_FALSE(o.finished.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(o.finished.status())) << o.finished.status();
  EXPECT_TRUE(absl::StrContains(o.finished.status().message(), "seat 2")) << o.finished.status();
  EXPECT_TRUE(absl::StrContains(o.finished.status().message(), nobody)) << o.finished.status();
}

TEST(RefereeTest, BadSpecsAreRejected) {
  Outcome wrong_seats = RunMatch(Spec("slovenian-4p", {"127.0.0.1:1", "127.0.0.1:1"}, 4, 1));
  EXPECT_TRUE(absl::IsInvalidArgument(wrong_seats.finished.status()));
  Outcome wrong_hands = RunMatch(Spec("slovenian-3p", {"a:1", "a:1", "a:1"}, 4, 1));
  EXPECT_TRUE(absl::IsInvalidArgument(wrong_hands.finished.status()));
  Outcome unknown = RunMatch(Spec("no-such-variant", {"a:1"}, 4, 1));
  EXPECT_FALSE(unknown.finished.ok());
}

// Every seat a spy, in every variant it can check: no request may name a card of
// another seat that has not been played or shown.
class SpyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SpyTest, NoHiddenCardReachesAnySeat) {
  const std::string variant = GetParam();
  auto info = Registry::Global().Info(variant);
  ASSERT_TRUE(info.ok());
  const uint64_t seed = 2024;
  const std::string leak_file =
      (std::filesystem::temp_directory_path() / absl::StrCat("tarock_spy_leak_", getpid())).string();
  std::filesystem::remove(leak_file);
  std::vector<BotProcess> bots;
  std::vector<std::string> endpoints;
  for (int i = 0; i < info->num_seats; ++i) {
    bots.push_back(StartBot("faulty_bot", {"--mode", "spy", absl::StrCat("--seed=", seed),
                                           "--leak_file", leak_file}));
    endpoints.push_back(bots.back().endpoint);
  }
  Outcome o = RunMatch(Spec(variant, endpoints, 8 * info->num_seats, seed));
  ASSERT_TRUE(o.finished.ok()) << o.finished.status();
  EXPECT_FALSE(std::filesystem::exists(leak_file)) << "the spy saw a hidden card";
  EXPECT_TRUE(o.faults.empty()) << o.faults.front().DebugString();
  ExpectRecordReplays(o.finished->record_json(), 8 * info->num_seats);
}

INSTANTIATE_TEST_SUITE_P(Variants, SpyTest,
                         // westfest deals inside the hand (cut or tap), which the
                         // spy cannot recompute; its property test covers it.
                         ::testing::Values("slovenian-4p", "slovenian-3p", "slovenian-5p",
                                           "slovenian-tapp", "tapp-tarock",
                                           "tapp-tarock-classic"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// Issue 44: a seat's view of a finished hand gives nothing about the next. Every
// seat is a listening bot that keeps each hand record it gets and tries the
// published attack (invert the record's hand seed for the match seed, deal the
// next hand from it); it exits 3 and writes the leak file when it predicts its
// next hand. With a salt (the arena's) and without (local tools).
TEST(RefereeProcessTest, AFinishedHandsRecordPredictsNoLaterDeal) {
  for (const std::string salt : {"", "00112233445566778899aabbccddeeff"}) {
    SCOPED_TRACE(salt);
    const uint64_t seed = 0x5EED44;
    const std::string dir =
        (std::filesystem::temp_directory_path() / absl::StrCat("tarock_predict_", getpid())).string();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::vector<BotProcess> bots;
    std::vector<std::string> endpoints;
    for (int i = 0; i < 4; ++i) {
      bots.push_back(StartBot("faulty_bot", {"--mode", "predict", "--leak_file", dir + "/leak",
                                             absl::StrCat("--records_file=", dir, "/records-", i)}));
      endpoints.push_back(bots.back().endpoint);
    }
    const int hands = 8;
    v1::MatchSpec spec = Spec("slovenian-4p", endpoints, hands, seed);
    spec.set_seed_salt(salt);
    Outcome o = RunMatch(spec);
    ASSERT_TRUE(o.finished.ok()) << o.finished.status();
    EXPECT_FALSE(std::filesystem::exists(dir + "/leak")) << "a seat predicted its next hand";
    // Every number the match's secret gives: the seed and each hand's seeds.
    std::vector<std::string> secrets = {absl::StrCat(seed)};
    for (int h = 0; h <= hands; ++h)
      for (int k = 0; k < 4; ++k) {
        secrets.push_back(absl::StrCat(DealSeed(seed, salt, h, k)));
        secrets.push_back(absl::StrCat(HandSeed(seed, h)));
      }
    if (!salt.empty()) secrets.push_back(salt);
    for (int i = 0; i < 4; ++i) {
      std::ifstream in(absl::StrCat(dir, "/records-", i));
      std::string line;
      int seen = 0;
      while (std::getline(in, line)) {
        ++seen;
        json j = json::parse(line);
        EXPECT_FALSE(j.contains("seed")) << "seat " << i << ": " << line;
        for (const std::string& x : secrets)
          EXPECT_FALSE(absl::StrContains(line, x)) << "seat " << i << " got " << x << ": " << line;
      }
      EXPECT_GE(seen, hands) << "seat " << i << " got no hand records";
    }
    // The published record names the deal's key, and it replays.
    json record = json::parse(o.finished->record_json());
    EXPECT_EQ(record["seed"].get<uint64_t>(), seed);
    if (!salt.empty()) EXPECT_EQ(record["seed_salt"], salt);
    EXPECT_EQ(record["deals"][0]["seed"].get<uint64_t>(), DealSeed(seed, salt, 0, 0));
    ExpectRecordReplays(o.finished->record_json(), hands);
    std::filesystem::remove_all(dir);
  }
}

// The body of GET `path` on 127.0.0.1:PORT ("" when the request fails).
std::string HttpGet(int port, const std::string& path) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(5);
  client.set_read_timeout(20);
  httplib::Result res = client.Get(path);
  return res ? res->body : "";
}

TEST(RefereeProcessTest, RefereeServiceRunsAMatchAndExportsMetrics) {
  absl::StatusOr<int> port = FreeLoopbackPort();
  absl::StatusOr<int> metrics_port = FreeLoopbackPort();
  ASSERT_TRUE(port.ok() && metrics_port.ok());
  const std::string address = absl::StrCat("127.0.0.1:", *port);
  auto referee = Subprocess::Start({kBin + "tarock-referee", "--listen", address,
                                    absl::StrCat("--metrics_listen=127.0.0.1:", *metrics_port)});
  ASSERT_TRUE(referee.ok());
  ASSERT_TRUE(WaitForPort("127.0.0.1", *port, absl::Now() + absl::Seconds(10)));
  ASSERT_TRUE(WaitForPort("127.0.0.1", *metrics_port, absl::Now() + absl::Seconds(10)));
  std::vector<BotProcess> bots;
  std::vector<std::string> endpoints;
  for (int i = 0; i < 3; ++i) {
    bots.push_back(StartBot(i == 0 ? "faulty_bot" : "tarock-bot-random",
                            i == 0 ? std::vector<std::string>{"--mode", "illegal", "--every=9"}
                                   : std::vector<std::string>{}));
    endpoints.push_back(bots.back().endpoint);
  }
  auto stub = v1::Referee::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  auto reader = stub->RunMatch(&context, Spec("slovenian-3p", endpoints, 6, 9));
  v1::MatchEvent event;
  int hands = 0, faults = 0;
  std::optional<v1::MatchFinished> finished;
  while (reader->Read(&event)) {
    if (event.has_hand_finished() && !event.hand_finished().redeal()) ++hands;
    if (event.has_fault()) ++faults;
    if (event.has_match_finished()) finished = event.match_finished();
  }
  ASSERT_TRUE(reader->Finish().ok());
  ASSERT_TRUE(finished.has_value());
  EXPECT_EQ(hands, 6);
  EXPECT_GT(faults, 0);
  EXPECT_EQ(finished->seats(0).faults(), faults);
  ExpectRecordReplays(finished->record_json(), 6);

  // A bad spec comes back as INVALID_ARGUMENT.
  grpc::ClientContext bad_context;
  auto bad = stub->RunMatch(&bad_context, Spec("slovenian-3p", endpoints, 5, 9));
  while (bad->Read(&event)) {
  }
  EXPECT_EQ(bad->Finish().error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  std::string metrics = HttpGet(*metrics_port, "/metrics");
  EXPECT_TRUE(absl::StrContains(metrics, "tarock_referee_decisions_total{bot=\"bot1\"}")) << metrics;
  EXPECT_TRUE(absl::StrContains(metrics, "tarock_referee_decision_seconds_bucket{bot=\"bot0\",le="));
  EXPECT_TRUE(absl::StrContains(
      metrics, absl::StrCat("tarock_referee_faults_total{bot=\"bot0\",kind=\"illegal_action\"} ",
                            faults)));
  EXPECT_TRUE(absl::StrContains(metrics, "tarock_referee_active_matches 0"));
  EXPECT_TRUE(absl::StrContains(metrics, "tarock_referee_hands_total{variant=\"slovenian-3p\"}"));
  EXPECT_TRUE(absl::StrContains(
      metrics, "tarock_referee_matches_total{outcome=\"ok\",variant=\"slovenian-3p\"} 1"));

  // result_only: the same match again, and nothing but its result on the stream.
  v1::MatchSpec quiet = Spec("slovenian-3p", endpoints, 6, 9);
  quiet.set_result_only(true);
  grpc::ClientContext quiet_context;
  quiet_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  auto quiet_reader = stub->RunMatch(&quiet_context, quiet);
  std::vector<v1::MatchEvent> quiet_events;
  while (quiet_reader->Read(&event)) quiet_events.push_back(event);
  ASSERT_TRUE(quiet_reader->Finish().ok());
  ASSERT_EQ(quiet_events.size(), 1u);
  ASSERT_TRUE(quiet_events[0].has_match_finished());
  EXPECT_EQ(quiet_events[0].match_finished().hands(), 6);
  EXPECT_GT(quiet_events[0].match_finished().seats(0).faults(), 0);
  (*referee)->Stop();
}

}  // namespace
}  // namespace tarock
