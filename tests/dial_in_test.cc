// Bots that dial in (docs/dial-in.md), end to end with real processes on
// loopback: tarock-arena, tarock-referee and bot processes that listen on no
// port (C++ SDK --arena, Python `tarock_bot connect`, the stdio bridge's
// --connect). They play a ladder and
// a tournament whose records replay; a bot killed mid-match and started again
// resumes its seat; wrong, retired and endpoint bots' tokens, a second
// connection and garbage get a clear status and change nothing.

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <algorithm>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "referee/tools/subprocess.h"
#include "tarock/v1/arena.grpc.pb.h"
#include "tarock/v1/gateway.grpc.pb.h"

namespace tarock {
namespace {

namespace fs = std::filesystem;
const std::string kBin = std::string(TAROCK_BINARY_DIR) + "/bin/";

int Port() {
  absl::StatusOr<int> p = FreeLoopbackPort();
  EXPECT_TRUE(p.ok());
  return *p;
}
std::string Addr(int port) { return absl::StrCat("127.0.0.1:", port); }

std::unique_ptr<Subprocess> Launch(const std::vector<std::string>& argv, const std::string& out = "") {
  absl::StatusOr<std::unique_ptr<Subprocess>> s = Subprocess::Start(argv, out);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

bool WaitFor(const std::function<bool()>& done, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

std::unique_ptr<grpc::ClientContext> Ctx() {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  return c;
}

// An arena with one referee; bots are added as dial-in bots.
class DialIn {
 public:
  explicit DialIn(const std::string& name, std::vector<std::string> extra = {}) {
    dir_ = fs::temp_directory_path() / absl::StrCat("dial_in_test_", name, "_", getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const int rport = Port();
    referee_ = Launch({kBin + "tarock-referee", "--listen", Addr(rport), "--metrics_listen="});
    EXPECT_TRUE(WaitForPort("127.0.0.1", rport, absl::Now() + absl::Seconds(20)));
    port_ = Port();
    std::vector<std::string> argv = {kBin + "tarock-arena", "--listen", Addr(port_), "--http_listen=",
                                     "--data_dir", dir_.string(), "--referees", Addr(rport)};
    // "{referee}" in a flag stands for the referee's address.
    for (std::string& flag : extra) flag = absl::StrReplaceAll(flag, {{"{referee}", Addr(rport)}});
    argv.insert(argv.end(), extra.begin(), extra.end());
    arena_ = Launch(argv);
    EXPECT_TRUE(WaitForPort("127.0.0.1", port_, absl::Now() + absl::Seconds(20)));
    channel_ = grpc::CreateChannel(address(), grpc::InsecureChannelCredentials());
    stub_ = v1::Arena::NewStub(channel_);
    gateway_ = v1::BotGateway::NewStub(channel_);
  }
  ~DialIn() {
    bots_.clear();
    arena_.reset();
    referee_.reset();
    fs::remove_all(dir_);
  }

  std::string address() const { return Addr(port_); }
  v1::Arena::Stub* arena() { return stub_.get(); }
  v1::BotGateway::Stub* gateway() { return gateway_.get(); }
  const fs::path& dir() const { return dir_; }

  // Registers a dial-in bot; returns its token.
  std::string Add(const std::string& name, const std::string& variant = "slovenian-4p") {
    v1::AddBotRequest r;
    r.set_name(name);
    r.set_dial_in(true);
    r.add_variants(variant);
    r.set_owner(name + "-owner");
    v1::AddBotResponse out;
    grpc::Status s = stub_->AddBot(Ctx().get(), r, &out);
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_TRUE(out.bot().dial_in());
    return out.token();
  }
  // Starts a C++ bot that dials in as `name` (its process is kept by name).
  void StartCpp(const std::string& name, const std::string& token, const std::string& binary,
                std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {kBin + binary, "--arena", address(), "--token", token};
    argv.insert(argv.end(), extra.begin(), extra.end());
    bots_[name] = Launch(argv, (dir_ / (name + ".out")).string());
  }
  void StartPython(const std::string& name, const std::string& token) {
    bots_[name] = Launch({"/usr/bin/env", absl::StrCat("PYTHONPATH=", TAROCK_BINARY_DIR, "/python"),
                       absl::StrCat("TAROCK_BOT_TOKEN=", token), "/usr/bin/python3", "-m", "tarock_bot",
                       "connect", std::string(TAROCK_SOURCE_DIR) + "/sdk/templates/python/my_bot.py",
                       "--arena", address()},
                      (dir_ / (name + ".out")).string());
  }
  Subprocess* bot(const std::string& name) { return bots_[name].get(); }
  void StartStdio(const std::string& name, const std::string& token) {
    bots_[name] = Launch({kBin + "tarock-stdio-bridge", "--connect", address(), "--token", token,
                          "--", "awk", "-W", "interactive", "-f",
                          std::string(TAROCK_SOURCE_DIR) + "/sdk/templates/stdio/my_bot.awk"},
                         (dir_ / (name + ".out")).string());
  }
  void Forget(const std::string& name) { bots_.erase(name); }

  v1::BotInfo Bot(const std::string& name) {
    v1::GetBotRequest r;
    r.set_name(name);
    v1::BotInfo out;
    stub_->GetBot(Ctx().get(), r, &out);
    return out;
  }
  bool Online(const std::string& name) { return Bot(name).online(); }
  v1::StatusResponse Status() {
    v1::StatusResponse out;
    stub_->Status(Ctx().get(), {}, &out);
    return out;
  }
  v1::ArenaMatch Match(const std::string& id) {
    v1::GetMatchRequest r;
    r.set_id(id);
    r.set_with_record(true);
    v1::ArenaMatch out;
    EXPECT_TRUE(stub_->GetMatch(Ctx().get(), r, &out).ok());
    return out;
  }
  std::vector<v1::ArenaMatch> Matches() {
    v1::ListMatchesRequest r;
    r.set_limit(1000);
    v1::ListMatchesResponse out;
    EXPECT_TRUE(stub_->ListMatches(Ctx().get(), r, &out).ok());
    return {out.matches().begin(), out.matches().end()};
  }
  v1::LadderInfo Ladder(int max_matches, int hands, int64_t per_decision_ms = 0) {
    v1::StartLadderRequest r;
    r.mutable_config()->set_variant("slovenian-4p");
    r.mutable_config()->set_format("match");
    r.mutable_config()->set_max_matches(max_matches);
    r.mutable_config()->set_hands_per_match(hands);
    r.mutable_config()->mutable_time_control()->set_per_decision_ms(per_decision_ms);
    v1::LadderInfo out;
    grpc::Status s = stub_->StartLadder(Ctx().get(), r, &out);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return out;
  }

 private:
  fs::path dir_;
  int port_ = 0;
  std::unique_ptr<Subprocess> referee_, arena_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Arena::Stub> stub_;
  std::unique_ptr<v1::BotGateway::Stub> gateway_;
  std::map<std::string, std::unique_ptr<Subprocess>> bots_;
};

// `tarock replay` accepts the stored match record.
void ExpectReplays(const v1::ArenaMatch& m, const fs::path& dir) {
  ASSERT_FALSE(m.record_json().empty()) << m.id();
  const fs::path file = dir / (m.id() + ".json");
  std::ofstream(file) << m.record_json();
  const std::string cmd = absl::StrCat(kBin, "tarock replay ", file.string(), " > /dev/null");
  EXPECT_EQ(std::system(cmd.c_str()), 0) << m.id();
}

int SeatFaults(const v1::ArenaMatch& m, const std::string& bot) {
  int faults = 0;
  for (const v1::ArenaSeat& s : m.seats())
    if (s.bot() == bot) faults += s.faults();
  return faults;
}

// Both routes of docs/dial-in.md: "relay" (through the arena) and "direct"
// (the bots join the referee with seat tickets).
class DialInRouteTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::vector<std::string> RouteFlags() const { return {"--dial_in_route=" + GetParam()}; }
};
INSTANTIATE_TEST_SUITE_P(Routes, DialInRouteTest, ::testing::Values("relay", "direct"),
                         [](const auto& info) { return info.param; });

TEST_P(DialInRouteTest, BotsWithoutAPortPlayALadderAndATournamentAndTheirRecordsReplay) {
  DialIn a("play_" + GetParam(), RouteFlags());
  const std::vector<std::string> names = {"cpp-random", "stdio-awk", "cpp-heuristic", "python"};
  std::map<std::string, std::string> tokens;
  for (const std::string& n : names) tokens[n] = a.Add(n);
  EXPECT_FALSE(a.Online("python"));
  a.StartCpp("cpp-random", tokens["cpp-random"], "tarock-bot-random");
  a.StartStdio("stdio-awk", tokens["stdio-awk"]);
  a.StartCpp("cpp-heuristic", tokens["cpp-heuristic"], "tarock-bot-heuristic");
  a.StartPython("python", tokens["python"]);
  for (const std::string& n : names)
    ASSERT_TRUE(WaitFor([&] { return a.Online(n); }, absl::Seconds(30))) << n << " never came online";

  a.Ladder(4, 4);
  ASSERT_TRUE(WaitFor([&] { return a.Status().matches_done() == 4; }, absl::Seconds(90)))
      << a.Status().DebugString();

  v1::RunTournamentRequest t;
  t.set_variant("slovenian-4p");
  for (const std::string& n : names) t.add_bots(n);
  t.set_deals(1);
  t.set_hands_per_match(4);
  v1::TournamentInfo info;
  ASSERT_TRUE(a.arena()->RunTournament(Ctx().get(), t, &info).ok());
  ASSERT_TRUE(WaitFor([&] { return a.Status().matches_done() == 8; }, absl::Seconds(90)))
      << a.Status().DebugString();
  EXPECT_EQ(a.Status().matches_failed(), 0);

  std::vector<v1::ArenaMatch> matches = a.Matches();
  ASSERT_EQ(matches.size(), 8u);
  for (const v1::ArenaMatch& listed : matches) {
    v1::ArenaMatch m = a.Match(listed.id());
    EXPECT_EQ(m.status(), "done");
    for (const v1::ArenaSeat& s : m.seats()) EXPECT_EQ(s.faults(), 0) << m.id() << " " << s.bot();
    ExpectReplays(m, a.dir());
  }
}

// --dial_in_route=auto, the default: bots that can join the referee do; bots
// that cannot (here the address the arena gives them for the referee is a
// closed port) play relayed once --dial_in_join_wait_ms has passed, with no
// fault, and their connections stay relayed. The bot list says which route
// each bot takes. With the arena's defaults: a wait of 3 s, as long as a
// ladder's connect timeout (this test once set 500 ms, and so missed that
// with the defaults a ladder's seats never fell back).
TEST(DialInTest, TheAutoRouteRelaysBotsThatCannotReachTheRefereeWithoutAFault) {
  const int closed = Port();
  DialIn a("auto", {absl::StrCat("--referee_bot_addresses={referee}=", Addr(closed))});
  const std::vector<std::string> names = {"walled0", "walled1", "walled2", "walled3"};
  for (const std::string& n : names) a.StartCpp(n, a.Add(n), "tarock-bot-random");
  for (const std::string& n : names) {
    ASSERT_TRUE(WaitFor([&] { return a.Bot(n).dial_in_route() == "direct"; }, absl::Seconds(30)))
        << n << ": " << a.Bot(n).DebugString();
  }
  a.Ladder(3, 4);
  ASSERT_TRUE(WaitFor([&] { return a.Status().matches_done() == 3; }, absl::Seconds(90)))
      << a.Status().DebugString();
  EXPECT_EQ(a.Status().matches_failed(), 0);
  for (const v1::ArenaMatch& listed : a.Matches()) {
    v1::ArenaMatch m = a.Match(listed.id());
    EXPECT_EQ(m.status(), "done");
    for (const v1::ArenaSeat& s : m.seats()) EXPECT_EQ(s.faults(), 0) << m.id() << " " << s.bot();
    ExpectReplays(m, a.dir());
  }
  for (const std::string& n : names) EXPECT_EQ(a.Bot(n).dial_in_route(), "relay") << n;
}

// A gateway connection opened by the test itself.
struct RawConnection {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReaderWriter<v1::BotUplink, v1::ArenaDownlink>> stream;
  RawConnection(v1::BotGateway::Stub* stub, const std::string& token) {
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    stream = stub->Connect(&context);
  }
  // The first message (a Welcome), or nothing when the call ended.
  std::optional<v1::ArenaDownlink> Read() {
    v1::ArenaDownlink in;
    if (!stream->Read(&in)) return std::nullopt;
    return in;
  }
  grpc::Status Finish() {
    stream->WritesDone();
    v1::ArenaDownlink in;
    while (stream->Read(&in)) {
    }
    return stream->Finish();
  }
};

TEST(DialInTest, WrongRetiredSecondAndGarbageConnectionsGetClearErrorsAndChangeNothing) {
  DialIn a("refuse");
  const std::string token = a.Add("dialer");
  const std::string retired_token = a.Add("old");
  {
    v1::RetireBotRequest r;
    r.set_name("old");
    r.set_token(retired_token);
    v1::BotInfo out;
    ASSERT_TRUE(a.arena()->RetireBot(Ctx().get(), r, &out).ok());
  }
  std::string endpoint_token;
  {
    v1::AddBotRequest r;
    r.set_name("listener");
    r.set_endpoint("127.0.0.1:1");
    r.add_variants("slovenian-4p");
    r.set_owner("o");
    v1::AddBotResponse out;
    ASSERT_TRUE(a.arena()->AddBot(Ctx().get(), r, &out).ok());
    endpoint_token = out.token();
  }
  v1::ListBotsRequest all;
  all.set_include_retired(true);
  v1::ListBotsResponse before;
  ASSERT_TRUE(a.arena()->ListBots(Ctx().get(), all, &before).ok());

  auto refused = [&](const std::string& t) {
    RawConnection c(a.gateway(), t);
    EXPECT_FALSE(c.Read().has_value());
    return c.Finish();
  };
  grpc::Status s = refused("0123456789abcdef0123456789abcdef");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED) << s.error_message();
  EXPECT_FALSE(absl::StrContains(s.error_message(), "0123456789abcdef"));  // never echoed
  s = refused("");
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED) << s.error_message();
  EXPECT_TRUE(absl::StrContains(s.error_message(), "Bearer")) << s.error_message();
  s = refused(retired_token);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << s.error_message();
  EXPECT_TRUE(absl::StrContains(s.error_message(), "retired")) << s.error_message();
  s = refused(endpoint_token);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << s.error_message();
  EXPECT_TRUE(absl::StrContains(s.error_message(), "--dial_in")) << s.error_message();
  EXPECT_FALSE(a.Online("dialer"));

  // The SDK says why and exits non-zero.
  std::unique_ptr<Subprocess> wrong =
      Launch({kBin + "tarock-bot-random", "--arena", a.address(), "--token", "nope"});
  ASSERT_TRUE(WaitFor([&] { return !wrong->Running(); }, absl::Seconds(10)));

  // A second connection replaces the first, which ends with ABORTED.
  RawConnection first(a.gateway(), token);
  std::optional<v1::ArenaDownlink> welcome = first.Read();
  ASSERT_TRUE(welcome && welcome->has_welcome());
  EXPECT_EQ(welcome->welcome().bot(), "dialer");
  EXPECT_TRUE(a.Online("dialer"));
  RawConnection second(a.gateway(), token);
  welcome = second.Read();
  ASSERT_TRUE(welcome && welcome->has_welcome());
  s = first.Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ABORTED) << s.error_message();
  EXPECT_TRUE(a.Online("dialer"));

  // Garbage on the second: a reply for a seat never given, then a message
  // that is no BotUplink at all (on a third connection): each ends its call.
  v1::BotUplink bogus;
  bogus.mutable_reply()->set_seat_id(12345);
  bogus.mutable_reply()->mutable_message()->mutable_decision()->set_action("pass");
  second.stream->Write(bogus);
  s = second.Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_TRUE(absl::StrContains(s.error_message(), "never given")) << s.error_message();
  EXPECT_FALSE(a.Online("dialer"));
  {
    grpc::GenericStub generic(grpc::CreateChannel(a.address(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + token);
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    grpc::CompletionQueue cq;
    std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
        generic.PrepareCall(&context, "/tarock.v1.BotGateway/Connect", &cq);
    void* tag;
    bool ok;
    call->StartCall(reinterpret_cast<void*>(1));
    ASSERT_TRUE(cq.Next(&tag, &ok) && ok);
    const char garbage[] = "\xff\xff\xff\xff\x0f not a protobuf";
    grpc::Slice slice(garbage, sizeof(garbage) - 1);
    grpc::ByteBuffer buffer(&slice, 1);
    call->Write(buffer, reinterpret_cast<void*>(2));
    ASSERT_TRUE(cq.Next(&tag, &ok));
    grpc::ByteBuffer in;
    // Read until the stream ends (the Welcome first).
    for (;;) {
      call->Read(&in, reinterpret_cast<void*>(3));
      ASSERT_TRUE(cq.Next(&tag, &ok));
      if (!ok) break;
    }
    grpc::Status status;
    call->Finish(&status, reinterpret_cast<void*>(4));
    ASSERT_TRUE(cq.Next(&tag, &ok));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_TRUE(absl::StrContains(status.error_message(), "BotUplink")) << status.error_message();
    cq.Shutdown();
    while (cq.Next(&tag, &ok)) {
    }
  }

  // Issue 29: wrong tokens lock out wrong tokens from their address, never
  // a right one (the lockout keys on the token, not only the address).
  for (int i = 0; i < 25; ++i) s = refused(absl::StrCat("wrong-token-", i));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  {
    RawConnection good(a.gateway(), token);
    std::optional<v1::ArenaDownlink> hello = good.Read();
    ASSERT_TRUE(hello && hello->has_welcome()) << good.Finish().error_message();
    EXPECT_EQ(hello->welcome().bot(), "dialer");
    good.Finish();
  }
  EXPECT_EQ(refused("still-wrong").error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);

  v1::ListBotsResponse after;
  ASSERT_TRUE(a.arena()->ListBots(Ctx().get(), all, &after).ok());
  ASSERT_EQ(before.bots_size(), after.bots_size());
  for (int i = 0; i < before.bots_size(); ++i) {
    v1::BotInfo b = before.bots(i), c = after.bots(i);
    b.set_online(false);
    c.set_online(false);
    EXPECT_EQ(b.SerializeAsString(), c.SerializeAsString()) << b.name();
  }
  EXPECT_EQ(a.Status().matches_done(), 0);
}

TEST_P(DialInRouteTest, ABotKilledMidMatchResumesItsSeatWhenItComesBack) {
  DialIn a("kill_" + GetParam(), RouteFlags());
  std::map<std::string, std::string> tokens;
  for (const std::string& n : {"r1", "r2", "r3", "slow"}) tokens[n] = a.Add(n);
  // Search bots taking 20 ms a decision: a match of 8 hands lasts seconds.
  const std::vector<std::string> slow_args = {"--iterations", "0", "--budget_ms", "20"};
  for (const std::string& n : {"r1", "r2", "r3", "slow"})
    a.StartCpp(n, tokens[n], "tarock-bot-search", slow_args);
  for (const std::string& n : {"r1", "r2", "r3", "slow"})
    ASSERT_TRUE(WaitFor([&] { return a.Online(n); }, absl::Seconds(30))) << n;

  // (1) Killed and started again at once: its decision waits for it, no fault.
  a.Ladder(1, 8, 5000);
  ASSERT_TRUE(WaitFor([&] { return a.Status().running() == 1; }, absl::Seconds(30)));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(kill(a.bot("slow")->pid(), SIGKILL), 0);
  a.Forget("slow");
  a.StartCpp("slow", tokens["slow"], "tarock-bot-search", slow_args);
  ASSERT_TRUE(WaitFor([&] { return a.Status().matches_done() == 1; }, absl::Seconds(120)))
      << a.Status().DebugString();
  v1::ArenaMatch m = a.Match(a.Matches().at(0).id());
  EXPECT_EQ(m.status(), "done");
  EXPECT_EQ(SeatFaults(m, "slow"), 0) << m.DebugString().substr(0, 2000);
  EXPECT_GT(m.duration_s(), 1.0) << "the match must outlast the kill";
  ExpectReplays(m, a.dir());

  // (2) Away for longer than a decision's time: disconnect faults for the
  // decisions it missed, the fallback plays them, the match completes. A
  // decision's time of 1 s, not less: the search bots' 20 ms must never
  // time out on a loaded machine (a timeout is not the fault this checks).
  ASSERT_TRUE(WaitFor([&] { return a.Online("slow"); }, absl::Seconds(10)));
  // The first ladder is over once the dispatcher has seen its match done
  // (its next round, within 100 ms): a second one before that is refused.
  ASSERT_TRUE(WaitFor([&] {
    v1::ListLaddersRequest r;
    v1::ListLaddersResponse out;
    return a.arena()->ListLadders(Ctx().get(), r, &out).ok() &&
           std::none_of(out.ladders().begin(), out.ladders().end(),
                        [](const v1::LadderInfo& l) { return l.running(); });
  }, absl::Seconds(10)));
  // 12 hands: 8 lasted 2.9 s once (a deal of short hands, 229 decisions),
  // ending before the bot came back at 3 s.
  a.Ladder(1, 12, 1000);
  ASSERT_TRUE(WaitFor([&] { return a.Status().running() == 1; }, absl::Seconds(30)));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(kill(a.bot("slow")->pid(), SIGKILL), 0);
  a.Forget("slow");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  a.StartCpp("slow", tokens["slow"], "tarock-bot-search", slow_args);
  ASSERT_TRUE(WaitFor([&] { return a.Status().matches_done() == 2; }, absl::Seconds(120)))
      << a.Status().DebugString();
  std::string second;
  for (const v1::ArenaMatch& x : a.Matches())
    if (x.id() != m.id()) second = x.id();
  m = a.Match(second);
  EXPECT_EQ(m.status(), "done");
  EXPECT_GT(m.duration_s(), 3.0) << "the match must outlast the bot's return";
  const int faults = SeatFaults(m, "slow");
  EXPECT_GT(faults, 0);
  nlohmann::json record = nlohmann::json::parse(m.record_json());
  int decisions = 0, disconnects = 0, others = 0;
  // Who noticed the absence tells the route: the referee itself on the direct
  // route, the arena's relay otherwise.
  const std::string noticed_by = GetParam() == "direct" ? "stream to the referee" : "dial-in bot";
  for (const auto& deal : record["deals"]) {
    for (const auto& f : deal.value("faults", nlohmann::json::array())) {
      if (f.value("kind", "") == "disconnect") ++disconnects;
      else ++others;
      EXPECT_NE(f.value("detail", "").find(noticed_by), std::string::npos) << f.dump();
    }
    decisions += static_cast<int>(deal["actions"].size());
  }
  EXPECT_EQ(disconnects, faults) << m.record_json().substr(0, 3000);
  EXPECT_EQ(others, 0) << m.record_json().substr(0, 3000);
  EXPECT_LT(faults, decisions / 4) << "the bot played again after it came back; "
                                   << m.record_json().substr(0, 3000);
  ExpectReplays(m, a.dir());
}

TEST(DialInTest, ATournamentWaitsForAnOfflineBotAndSaysSoThenFailsItsMatchesAfterTheTimeout) {
  DialIn a("wait", {"--dial_in_wait_s", "3"});
  std::map<std::string, std::string> tokens;
  for (const std::string& n : {"w1", "w2", "w3", "late"}) tokens[n] = a.Add(n);
  for (const std::string& n : {"w1", "w2", "w3"}) a.StartCpp(n, tokens[n], "tarock-bot-random");
  for (const std::string& n : {"w1", "w2", "w3"})
    ASSERT_TRUE(WaitFor([&] { return a.Online(n); }, absl::Seconds(30))) << n;
  auto tournament = [&] {
    v1::RunTournamentRequest t;
    t.set_variant("slovenian-4p");
    for (const std::string& n : {"w1", "w2", "w3", "late"}) t.add_bots(n);
    t.set_deals(1);
    t.set_hands_per_match(4);
    v1::TournamentInfo info;
    EXPECT_TRUE(a.arena()->RunTournament(Ctx().get(), t, &info).ok());
    return info.id();
  };
  // "late" is offline: the matches wait, and the status says for whom.
  tournament();
  ASSERT_TRUE(WaitFor([&] { return a.Status().waiting_for_dial_in_size() > 0; }, absl::Seconds(10)));
  EXPECT_TRUE(absl::StrContains(a.Status().waiting_for_dial_in(0), "late"))
      << a.Status().waiting_for_dial_in(0);
  // It comes within the wait: every match plays.
  a.StartCpp("late", tokens["late"], "tarock-bot-random");
  ASSERT_TRUE(WaitFor([&] { return a.Status().matches_done() == 4; }, absl::Seconds(60)))
      << a.Status().DebugString();
  EXPECT_EQ(a.Status().waiting_for_dial_in_size(), 0);

  // Gone for good: after the wait, its matches fail saying why.
  a.Forget("late");
  ASSERT_TRUE(WaitFor([&] { return !a.Online("late"); }, absl::Seconds(10)));
  tournament();
  ASSERT_TRUE(WaitFor([&] { return a.Status().matches_failed() == 4; }, absl::Seconds(60)))
      << a.Status().DebugString();
  for (const v1::ArenaMatch& m : a.Matches()) {
    if (m.status() != "failed") continue;
    EXPECT_TRUE(absl::StrContains(m.error(), "dial-in bot 'late' did not connect within 3 s"))
        << m.error();
  }
}

TEST(DialInTest, TwoHundredBotsConnectedAtOncePlayALadderWithoutAFault) {
  DialIn a("swarm", {"--max_parallel", "8"});
  constexpr int kBots = 200;
  std::vector<std::string> names;
  for (int i = 0; i < kBots; ++i) {
    names.push_back(absl::StrCat("swarm-", i));
    a.StartCpp(names.back(), a.Add(names.back()), "tarock-bot-random");
  }
  auto online = [&] {
    v1::ListBotsResponse out;
    a.arena()->ListBots(Ctx().get(), {}, &out);
    int n = 0;
    for (const v1::BotInfo& b : out.bots()) n += b.online();
    return n;
  };
  ASSERT_TRUE(WaitFor([&] { return online() == kBots; }, absl::Seconds(120))) << online();

  constexpr int kMatches = 100;
  a.Ladder(kMatches, 4);
  ASSERT_TRUE(WaitFor([&] { return a.Status().matches_done() == kMatches; }, absl::Seconds(300)))
      << a.Status().DebugString();
  EXPECT_EQ(a.Status().matches_failed(), 0);
  std::set<std::string> seated;
  for (const v1::ArenaMatch& m : a.Matches()) {
    EXPECT_EQ(m.status(), "done") << m.id();
    for (const v1::ArenaSeat& seat : m.seats()) {
      EXPECT_EQ(seat.faults(), 0) << m.id() << " " << seat.bot();
      seated.insert(seat.bot());
    }
  }
  EXPECT_GT(seated.size(), 150u) << "the ladder spreads its matches over the bots";
  EXPECT_EQ(online(), kBots);
  for (const std::string& n : names) EXPECT_TRUE(a.bot(n)->Running()) << n;
}

}  // namespace
}  // namespace tarock
