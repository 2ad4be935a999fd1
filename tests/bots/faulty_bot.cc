// `faulty_bot`: a bot that misbehaves on purpose, for the referee's process-level
// tests. It serves the Bot service directly (not through the SDK) so it can
// break the protocol in ways the SDK never would.
//
//   faulty_bot --listen HOST:PORT --mode MODE [--after K] [--every N] [--delay_ms D]
//
// Modes (each kicks in from decision K, counting from 0, and, where it makes
// sense, repeats every N decisions; otherwise it plays a legal action):
//   late      answers after sleeping D ms
//   illegal   answers a well-formed action that is not legal
//   garbage   answers text that is no action at all
//   wrong_id  answers with a request_id nobody asked for
//   oversized answers with a message far above the referee's size limit
//   silent    stops answering (keeps the stream open)
//   crash     exits the process abruptly
//   drop      ends the stream from its side
//   spy       plays uniformly random legal actions (seeded by --seed and the
//             seat), and exits with status 3 (writing --leak_file) if a request
//             ever names a card of another seat that is still hidden
//   predict   plays legally and attacks the deals: after every HandResult it
//             appends the hand record it got to --records_file (one line) and,
//             if the record names a seed, inverts the old HandSeed (a bijection
//             of the match seed) and predicts the next hand's cards; it exits
//             with status 3 (writing --leak_file) when its next hand is the
//             one predicted
//   good      plays legally (first legal action)
//   pass      passes whenever pass is legal, else the first legal action (the
//             first bot a student writes; in tapp-tarock-classic every deal is
//             thrown in)
//
// The spy knows the true deal: it is given --seed and the variant comes in
// MatchStart, so it recomputes every seat's hand with the engine (the deal is
// deterministic from the seed, redeals included) and checks each request's text.

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "referee/tools/program_usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "referee/engine/deal_seed.h"
#include "referee/engine/random.h"
#include "nlohmann/json.hpp"
#include "referee/engine/registry.h"
#include "tarock/v1/tarock.grpc.pb.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:0", "HOST:PORT");
ABSL_FLAG(std::string, mode, "good", "see the file comment");
ABSL_FLAG(int, after, 0, "first decision (0-based) where the mode applies");
ABSL_FLAG(int, every, 0, "repeat the fault every N decisions after that (0: every one)");
ABSL_FLAG(int, delay_ms, 1000, "late: how long to sleep");
ABSL_FLAG(uint64_t, seed, 0, "spy: the match seed");
ABSL_FLAG(std::string, leak_file, "", "spy, predict: file written when a leak is seen");
ABSL_FLAG(std::string, records_file, "", "predict: every hand record received, one a line");
ABSL_FLAG(std::string, salt, "", "spy: the match's seed salt (MatchSpec.seed_salt)");

namespace tarock {
namespace {

class Spy {
 public:
  void StartMatch(const v1::MatchStart& m) {
    Options options(m.options().begin(), m.options().end());
    auto game = Registry::Global().Create(m.variant(), options);
    if (game.ok()) game_ = std::move(*game);
    seat_ = m.seat();
    all_discards_shown_ = m.variant() == "tapp-tarock-classic";
  }
  // Finds the deal whose hand for this seat matches the HandStart (void deals
  // are dealt again from derived seeds, see referee/engine/match.h).
  void StartHand(const v1::HandStart& h) {
    others_ = CardSet();
    public_ = CardSet();
    if (!game_) return;
    CardSet mine;
    for (const std::string& c : h.hand()) mine.Add(*ParseCard(c));
    for (int attempt = 0; attempt < 50; ++attempt) {
      const uint64_t s = DealSeed(absl::GetFlag(FLAGS_seed), absl::GetFlag(FLAGS_salt), h.hand_index(), attempt);
      Deal deal = game_->DealCards(s, h.dealer());
      if (deal.hands[seat_] == mine) {
        for (int t = 0; t < static_cast<int>(deal.hands.size()); ++t)
          if (t != seat_) others_ |= deal.hands[t];
        return;
      }
    }
    Leak("could not reconstruct the deal");
  }
  void Check(const v1::DecisionRequest& r) {
    const v1::Observation& o = r.observation();
    for (const v1::Event& e : o.history()) {
      absl::string_view a = e.action();
      if (absl::ConsumePrefix(&a, "play ")) public_.Add(*ParseCard(a));
      // A discarded tarock is shown to everyone (the Slovenian variants and
      // tapp-tarock), every discard in tapp-tarock-classic; any other discard
      // of another seat must arrive as "discard ?".
      if (absl::ConsumePrefix(&a, "discard ") && a != "?") {
        absl::StatusOr<Card> c = ParseCard(a);
        if (c.ok() && (IsTarock(*c) || all_discards_shown_)) public_.Add(*c);
      }
    }
    for (const v1::ShownCards& s : o.shown())
      for (const std::string& c : s.cards()) public_.Add(*ParseCard(c));
    // The called king is named by design (everyone hears the call); where it
    // lies is what must stay hidden, so that field is left out of the scan.
    v1::DecisionRequest scanned = r;
    scanned.mutable_observation()->clear_called_king();
    CardSet named = CardsNamedIn(scanned.DebugString());
    CardSet leaked = named & (others_ - public_);
    if (!leaked.empty()) {
      std::string cards;
      for (Card c : leaked) absl::StrAppend(&cards, " ", CardName(c));
      Leak(absl::StrCat("hidden cards of other seats in a request:", cards, "\n",
                        r.ShortDebugString()));
    }
  }

 private:
  void Leak(const std::string& what) {
    std::fprintf(stderr, "faulty_bot spy: LEAK: %s\n", what.c_str());
    if (!absl::GetFlag(FLAGS_leak_file).empty()) std::ofstream(absl::GetFlag(FLAGS_leak_file)) << what << "\n";
    _exit(3);
  }
  std::unique_ptr<Game> game_;
  int seat_ = 0;
  bool all_discards_shown_ = false;
  CardSet others_;
  CardSet public_;
};

// The inverse of x -> x * a mod 2^64 for odd a (Newton's iteration).
uint64_t InverseOdd(uint64_t a) {
  uint64_t x = a;
  for (int i = 0; i < 6; ++i) x *= 2 - a * x;
  return x;
}

// The inverse of SplitMix64's output mixer: the state it was given.
uint64_t UnSplitMix64(uint64_t z) {
  z ^= z >> 31 ^ z >> 62;
  z *= InverseOdd(0x94D049BB133111EBULL);
  z ^= z >> 27 ^ z >> 54;
  z *= InverseOdd(0xBF58476D1CE4E5B9ULL);
  z ^= z >> 30 ^ z >> 60;
  return z - 0x9E3779B97F4A7C15ULL;
}

// The listening bot of issue 44: what can a seat compute from a finished hand?
class Predictor {
 public:
  void StartMatch(const v1::MatchStart& m) {
    Options options(m.options().begin(), m.options().end());
    auto game = Registry::Global().Create(m.variant(), options);
    if (game.ok()) game_ = std::move(*game);
    seat_ = m.seat();
    num_seats_ = m.num_seats();
  }
  void HandResult(const v1::HandResult& r) {
    if (!absl::GetFlag(FLAGS_records_file).empty())
      std::ofstream(absl::GetFlag(FLAGS_records_file), std::ios::app) << r.record_json() << "\n";
    predicted_.clear();
    if (!game_ || r.record_json().empty()) return;
    nlohmann::json j = nlohmann::json::parse(r.record_json(), nullptr, false);
    if (!j.is_object() || !j.contains("seed") || !j["seed"].is_number()) return;
    // The published attack: the hand seed is HandSeed(M, i) = SplitMix64 of
    // M ^ (C * (i + 1)); invert it for M, then deal hand i + 1 from M, by the
    // old derivation and by the keyed one with an empty salt.
    const uint64_t seed = j["seed"].get<uint64_t>();
    const uint64_t i = static_cast<uint64_t>(r.hand_index());
    const uint64_t m = UnSplitMix64(seed) ^ (0xD1B54A32D192ED03ULL * (i + 1));
    next_hand_ = r.hand_index() + 1;
    for (uint64_t s : {HandSeed(m, i + 1), DealSeed(m, "", next_hand_, 0)}) {
      for (int dealer = 0; dealer < num_seats_; ++dealer)
        predicted_.push_back(game_->DealCards(s, dealer).hands[seat_]);
    }
  }
  void HandStart(const v1::HandStart& h) {
    if (predicted_.empty() || h.hand_index() != next_hand_) return;
    CardSet mine;
    for (const std::string& c : h.hand()) mine.Add(*ParseCard(c));
    for (const CardSet& p : predicted_) {
      if (p == mine) {
        const std::string what = absl::StrCat("predicted hand ", h.hand_index(), " from the last record");
        std::fprintf(stderr, "faulty_bot predict: LEAK: %s\n", what.c_str());
        if (!absl::GetFlag(FLAGS_leak_file).empty()) std::ofstream(absl::GetFlag(FLAGS_leak_file)) << what << "\n";
        _exit(3);
      }
    }
  }

 private:
  std::unique_ptr<Game> game_;
  int seat_ = 0;
  int num_seats_ = 0;
  int next_hand_ = -1;
  std::vector<CardSet> predicted_;
};

class FaultyBot final : public v1::Bot::Service {
 public:
  grpc::Status Play(grpc::ServerContext* context,
                    grpc::ServerReaderWriter<v1::BotMessage, v1::RefereeMessage>* stream) override {
    const std::string mode = absl::GetFlag(FLAGS_mode);
    const int after = absl::GetFlag(FLAGS_after);
    const int every = absl::GetFlag(FLAGS_every);
    Spy spy;
    Predictor predictor;
    Rng rng(absl::GetFlag(FLAGS_seed) + 1);
    int decisions = 0;
    v1::RefereeMessage m;
    while (stream->Read(&m)) {
      if (m.has_match_start()) {
        spy.StartMatch(m.match_start());
        predictor.StartMatch(m.match_start());
        rng = Rng(HandSeed(absl::GetFlag(FLAGS_seed), 1000 + m.match_start().seat()));
      }
      if (m.has_hand_start() && mode == "spy") spy.StartHand(m.hand_start());
      if (m.has_hand_result() && mode == "predict") predictor.HandResult(m.hand_result());
      if (m.has_hand_start() && mode == "predict") predictor.HandStart(m.hand_start());
      if (!m.has_decision_request()) continue;
      const v1::DecisionRequest& r = m.decision_request();
      const int k = decisions++;
      const bool fault = k >= after && (every <= 0 || (k - after) % every == 0);
      v1::BotMessage reply;
      v1::Decision* d = reply.mutable_decision();
      d->set_request_id(r.request_id());
      d->set_action(r.legal_actions(0));
      if (mode == "pass") {  // the first bot a student writes: pass whenever it may
        for (const std::string& a : r.legal_actions())
          if (a == "pass") d->set_action(a);
      }
      if (mode == "spy") {
        spy.Check(r);
        d->set_action(r.legal_actions(rng.Below(r.legal_actions_size())));
      }
      if (fault) {
        if (mode == "late") {
          std::this_thread::sleep_for(std::chrono::milliseconds(absl::GetFlag(FLAGS_delay_ms)));
        } else if (mode == "illegal") {
          d->set_action(IllegalAction(r));
        } else if (mode == "garbage") {
          d->set_action("xyzzy \x01 not an action");
        } else if (mode == "wrong_id") {
          d->set_request_id(r.request_id() + 1000);
        } else if (mode == "oversized") {
          d->set_action(std::string(1 << 20, 'x'));
        } else if (mode == "silent") {
          continue;
        } else if (mode == "crash") {
          _exit(1);
        } else if (mode == "drop") {
          return grpc::Status(grpc::StatusCode::ABORTED, "faulty_bot drops the stream");
        }
      }
      if (!stream->Write(reply)) break;
    }
    return grpc::Status::OK;
  }

 private:
  // A well-formed action outside the legal list: a card play not in the legal
  // list, or a pass/bid nobody allowed.
  static std::string IllegalAction(const v1::DecisionRequest& r) {
    for (const char* candidate :
         {"play T22", "play T1", "play HK", "play SK", "pass", "bid valat", "call H"}) {
      bool legal = false;
      for (const std::string& a : r.legal_actions()) legal |= a == candidate;
      if (!legal) return candidate;
    }
    return "play D4";
  }
};

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop.store(true); }

}  // namespace
}  // namespace tarock

int main(int argc, char** argv) {
  tarock::SetProgramUsage(
      "faulty_bot --listen=HOST:PORT --mode=MODE [--after=K] [--every=N] [--delay_ms=D]\n"
      "A test bot that misbehaves on purpose, for the referee's process-level tests: it plays\n"
      "legally until decision K, then (every N decisions where that makes sense) breaks the\n"
      "protocol as --mode says: late, illegal, garbage, wrong_id, oversized, silent, crash,\n"
      "drop; spy and predict attack the deal's secrecy and exit 3 on a leak; good and pass\n"
      "play legally (tests/bots/faulty_bot.cc lists what each mode does).");
  tarock::ParseCommandLine(argc, argv);
  tarock::FaultyBot service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::GetFlag(FLAGS_listen), grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  builder.SetMaxSendMessageSize(8 << 20);
  auto server = builder.BuildAndStart();
  if (!server || port == 0) return 1;
  std::signal(SIGTERM, tarock::OnSignal);
  std::signal(SIGINT, tarock::OnSignal);
  while (!tarock::g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  return 0;
}
