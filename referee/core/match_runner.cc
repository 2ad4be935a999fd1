#include "referee/core/match_runner.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "referee/logging/log.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "nlohmann/json.hpp"
#include "referee/engine/match.h"
#include "referee/engine/deal_seed.h"
#include "referee/engine/random.h"
#include "referee/engine/public_view.h"
#include "referee/engine/record.h"
#include "referee/engine/registry.h"
#include "referee/engine/status_macros.h"
#include "referee/protocol/convert.h"

namespace tarock {
namespace {

using json = nlohmann::json;

// Everything the runner tracks for one seat.
struct Seat {
  std::string name;
  std::string endpoint;
  std::unique_ptr<BotConnection> connection;
  int faults = 0;
  int timeouts_in_row = 0;  // FaultPolicy.max_timeouts_in_row
  bool forfeited = false;
  int events_seen = 0;  // history entries already sent to this seat in this hand
  int decisions = 0;
  double total_ms = 0;
  double max_ms = 0;
  int64_t bank_left_ms = 0;
  // The fastest answer so far: an upper bound on the stream's round trip.
  absl::Duration fastest = absl::InfiniteDuration();
  prometheus::Counter* decisions_metric = nullptr;
  prometheus::Histogram* latency_metric = nullptr;
};

json FaultJson(const v1::Fault& f) {
  return json{{"seat", f.seat()},
              {"kind", FaultKindName(f.kind())},
              {"hand_index", f.hand_index()},
              {"action_index", f.action_index()},
              {"detail", f.detail()},
              {"fallback_action", f.fallback_action()}};
}

v1::RefereeMessage HandStartMessage(const MatchProgress::NextHand& next, int seat) {
  v1::RefereeMessage m;
  v1::HandStart* hs = m.mutable_hand_start();
  hs->set_hand_index(next.hand_index);
  hs->set_dealer(next.setup.dealer);
  if (seat < static_cast<int>(next.deal.hands.size()))
    for (Card c : next.deal.hands[seat]) hs->add_hand(CardName(c));
  for (int r : next.setup.radli) hs->add_radli(r);
  hs->set_forced_klop(next.setup.forced_klop);
  return m;
}

// The fallback for a seat that failed to decide: uniform over the legal
// actions, from a generator keyed by the match's secret and the place in the
// match (deal_seed.h: nothing of it says anything about a deal), so re-running
// a spec reproduces it.
Action FallbackAction(const State& state, const v1::MatchSpec& spec, int hand_index, int action_index) {
  ActionList legal;
  state.LegalActions(&legal);
  Rng rng(FallbackSeed(spec.seed(), spec.seed_salt(), hand_index, action_index));
  return legal.items[rng.Below(static_cast<uint32_t>(legal.size))];
}

// The three waits of a match, as awaitables (async.h).
using Connected = std::vector<absl::StatusOr<std::unique_ptr<BotConnection>>>;

// Connects every seat at once and resumes with the results in seat order once
// all are in: the seats' waits overlap (TCP handshakes, and dial-in bots
// joining; a seat that falls back from a join to the relay after its join
// wait does not push the next seat's wait past the connect deadline).
Await<Connected> ConnectAll(BotConnector* connector, const v1::MatchSpec& spec,
                            absl::Time deadline) {
  return Await<Connected>([connector, &spec, deadline](absl::AnyInvocable<void(Connected)> done) {
    struct Gather {
      absl::Mutex mu;
      Connected results ABSL_GUARDED_BY(mu);
      int left ABSL_GUARDED_BY(mu) = 0;
      absl::AnyInvocable<void(Connected)> done;
    };
    const int n = spec.seats_size();
    if (n == 0) return done(Connected());
    auto gather = std::make_shared<Gather>();
    {
      absl::MutexLock lock(&gather->mu);
      gather->results.resize(n);
      gather->left = n;
    }
    gather->done = std::move(done);
    for (int s = 0; s < n; ++s) {
      connector->ConnectSeatAsync(
          spec.seats(s), deadline,
          [gather, s](absl::StatusOr<std::unique_ptr<BotConnection>> connection) {
            Connected all;
            {
              absl::MutexLock lock(&gather->mu);
              gather->results[s] = std::move(connection);
              if (--gather->left > 0) return;
              all = std::move(gather->results);
            }
            gather->done(std::move(all));
          });
    }
  });
}

Await<BotReply> DecisionOf(BotConnection* connection, const v1::DecisionRequest& request,
                           absl::Time deadline) {
  return Await<BotReply>([connection, &request, deadline](BotConnection::DecideDone done) {
    connection->DecideAsync(request, deadline, std::move(done));
  });
}

Await<bool> FinishOf(BotConnection* connection, absl::Time deadline) {
  return Await<bool>([connection, deadline](absl::AnyInvocable<void(bool)> done) {
    connection->FinishAsync(deadline, [done = std::move(done)]() mutable { done(true); });
  });
}

}  // namespace

std::string FaultKindName(v1::FaultKind kind) {
  switch (kind) {
    case v1::FAULT_KIND_ILLEGAL_ACTION: return "illegal_action";
    case v1::FAULT_KIND_TIMEOUT: return "timeout";
    case v1::FAULT_KIND_MALFORMED: return "malformed";
    case v1::FAULT_KIND_DISCONNECT: return "disconnect";
    default: return "unspecified";
  }
}

absl::StatusOr<v1::MatchSpec> ValidateSpec(const v1::MatchSpec& spec,
                                           const RefereeOptions& options) {
  v1::MatchSpec out = spec;
  ASSIGN_OR_RETURN(VariantInfo info, Registry::Global().Info(spec.variant()));
  ASSIGN_OR_RETURN(Options complete, Registry::Global().CompleteOptions(
                                         spec.variant(), Options(spec.options().begin(),
                                                                 spec.options().end())));
  out.mutable_options()->clear();
  for (const auto& [k, v] : complete) (*out.mutable_options())[k] = v;
  if (spec.seats_size() != info.num_seats)
    return absl::InvalidArgumentError(absl::StrCat(spec.variant(), " needs ", info.num_seats,
                                                   " seats, the spec has ", spec.seats_size()));
  // Sizes no real spec comes near (names and ids end up in logs and records).
  if (spec.match_id().size() > 128)
    return absl::InvalidArgumentError("the match_id is longer than 128 bytes");
  if (spec.options_size() > 64) return absl::InvalidArgumentError("more than 64 options");
  for (int i = 0; i < spec.seats_size(); ++i) {
    if (spec.seats(i).name().size() > 128 || spec.seats(i).endpoint().size() > 512)
      return absl::InvalidArgumentError(
          absl::StrCat("seat ", i, " has a name over 128 or an endpoint over 512 bytes"));
    if (spec.seats(i).endpoint().empty())
      return absl::InvalidArgumentError(absl::StrCat("seat ", i, " has no endpoint"));
    if (spec.seats(i).name().empty())
      out.mutable_seats(i)->set_name(absl::StrCat("seat", i));
  }
  if (spec.num_hands() <= 0 || spec.num_hands() % info.num_seats != 0)
    return absl::InvalidArgumentError(absl::StrCat("num_hands must be a positive multiple of ",
                                                   info.num_seats, ", got ", spec.num_hands()));
  if (spec.num_hands() > options.max_hands)
    return absl::InvalidArgumentError(
        absl::StrCat("num_hands ", spec.num_hands(), " is above the limit ", options.max_hands));
  const v1::TimeControl& tc = spec.time_control();
  if (tc.per_decision_ms() < 0 || tc.match_bank_ms() < 0 || tc.grace_ms() < 0)
    return absl::InvalidArgumentError("time control values must not be negative");
  auto over = [](int64_t value, int64_t bound) { return bound > 0 && value > bound; };
  if (over(tc.per_decision_ms(), options.max_per_decision_ms))
    return absl::InvalidArgumentError(absl::StrCat("per_decision_ms ", tc.per_decision_ms(),
                                                   " is above this referee's limit ",
                                                   options.max_per_decision_ms));
  if (over(tc.match_bank_ms(), options.max_match_bank_ms))
    return absl::InvalidArgumentError(absl::StrCat("match_bank_ms ", tc.match_bank_ms(),
                                                   " is above this referee's limit ",
                                                   options.max_match_bank_ms));
  if (over(tc.grace_ms(), options.max_grace_ms))
    return absl::InvalidArgumentError(absl::StrCat(
        "grace_ms ", tc.grace_ms(), " is above this referee's limit ", options.max_grace_ms));
  if (tc.per_decision_ms() == 0)
    out.mutable_time_control()->set_per_decision_ms(options.default_per_decision_ms);
  if (tc.grace_ms() == 0) out.mutable_time_control()->set_grace_ms(options.default_grace_ms);
  if (spec.fault_policy().max_faults() < 0)
    return absl::InvalidArgumentError("max_faults must not be negative");
  if (out.match_id().empty()) {
    // Never derived from the seed: every bot sees the match id, and the seed
    // is secret until the match is over (docs/security.md, "Secret deals").
    static std::atomic<uint64_t> next{0};
    out.set_match_id(absl::StrCat("match-", getpid(), "-", next.fetch_add(1) + 1));
  }
  return out;
}

absl::StatusOr<v1::MatchFinished> MatchRunner::Run(const v1::MatchSpec& spec,
                                                   const EventSink& on_event,
                                                   const CancelCheck& cancelled) {
  return BlockOn<absl::StatusOr<v1::MatchFinished>>([&](Done done) {
    Start(spec, on_event, cancelled, std::move(done));
  });
}

void MatchRunner::Start(const v1::MatchSpec& raw_spec, EventSink on_event, CancelCheck cancelled,
                        Done done, std::shared_ptr<MatchInterrupt> interrupt) {
  const absl::Time started = absl::Now();
  absl::StatusOr<v1::MatchSpec> spec = ValidateSpec(raw_spec, options_);
  if (!spec.ok()) return done(spec.status());
  const Options options(spec->options().begin(), spec->options().end());
  absl::StatusOr<std::unique_ptr<Game>> game = Registry::Global().Create(spec->variant(), options);
  if (!game.ok()) return done(game.status());
  MatchOptions mo;
  mo.num_hands = spec->num_hands();
  mo.seed = spec->seed();
  mo.salt = spec->seed_salt();
  absl::StatusOr<MatchProgress> progress = MatchProgress::Start(**game, mo);
  if (!progress.ok()) return done(progress.status());
  Play(started, *std::move(spec), *std::move(game), *std::move(progress), std::move(on_event),
       std::move(cancelled), std::move(interrupt))
      .Start(std::move(done));
}

DetachedTask<absl::StatusOr<v1::MatchFinished>> MatchRunner::Play(
    absl::Time started, v1::MatchSpec spec, std::unique_ptr<Game> game, MatchProgress progress,
    EventSink on_event, CancelCheck cancelled, std::shared_ptr<MatchInterrupt> interrupt) {
  const Options options(spec.options().begin(), spec.options().end());
  const int n = game->num_seats();

  const v1::TimeControl& tc = spec.time_control();
  const int max_faults = spec.fault_policy().max_faults();

  // Connect every seat first (all at once): a bot unreachable at the start
  // fails the match before anyone plays.
  std::vector<Seat> seats(n);
  absl::Duration connect_timeout = options_.connect_timeout;
  if (spec.connect_timeout_ms() > 0)
    connect_timeout = std::min(connect_timeout, absl::Milliseconds(spec.connect_timeout_ms()));
  const absl::Time connect_deadline = absl::Now() + connect_timeout;
  Connected connected = co_await ConnectAll(connector_, spec, connect_deadline);
  for (int s = 0; s < n; ++s) {
    if (connected[s].ok()) seats[s].connection = *std::move(connected[s]);
  }
  // Declared after `seats`, so destroyed (detached) before the connections.
  struct Detach {
    MatchInterrupt* interrupt;
    ~Detach() {
      if (interrupt) interrupt->Detach();
    }
  } detach{interrupt.get()};
  if (interrupt) {
    std::vector<BotConnection*> attached;
    for (Seat& seat : seats)
      if (seat.connection) attached.push_back(seat.connection.get());
    interrupt->Attach(std::move(attached));
  }
  for (int s = 0; s < n; ++s) {
    Seat& seat = seats[s];
    seat.name = spec.seats(s).name();
    seat.endpoint = spec.seats(s).endpoint();
    seat.bank_left_ms = tc.match_bank_ms();
    if (!connected[s].ok()) {
      logging::Warning("referee", "bot unreachable; match not started",
                       {{"match", spec.match_id()}, {"variant", spec.variant()}, {"seat", s},
                        {"bot", seat.name}, {"endpoint", seat.endpoint},
                        {"error", connected[s].status().ToString()}});
      for (Seat& other : seats)
        if (other.connection) co_await FinishOf(other.connection.get(), absl::Now());
      if (metrics_) metrics_->matches.Add({{"variant", spec.variant()}, {"outcome", "failed"}}).Increment();
      co_return absl::FailedPreconditionError(absl::StrCat("seat ", s, " (", seat.name, ") at ",
                                                 seat.endpoint, " is unreachable: ",
                                                 connected[s].status().message()));
    }
    if (metrics_) {
      seat.decisions_metric = &metrics_->decisions.Add({{"bot", seat.name}});
      seat.latency_metric =
          &metrics_->decision_seconds.Add({{"bot", seat.name}}, metrics_->decision_buckets);
    }
  }
  if (metrics_) metrics_->active_matches.Increment();
  if (logging::Enabled(logging::Level::kInfo)) {
    std::string names;
    for (const Seat& t : seats) absl::StrAppend(&names, names.empty() ? "" : ",", t.name);
    logging::Info("referee", "match started",
                  {{"match", spec.match_id()}, {"variant", spec.variant()},
                   {"hands", spec.num_hands()}, {"bots", names}});  // no seed: secret until the end
  }

  for (int s = 0; s < n; ++s) {
    v1::RefereeMessage m;
    v1::MatchStart* start = m.mutable_match_start();
    start->set_match_id(spec.match_id());
    start->set_variant(spec.variant());
    *start->mutable_options() = spec.options();
    start->set_seat(s);
    start->set_num_seats(n);
    start->set_num_hands(spec.num_hands());
    *start->mutable_time_control() = tc;
    for (const Seat& t : seats) start->add_seat_names(t.name);
    seats[s].connection->Send(m);
  }

  json record;
  record["match_id"] = spec.match_id();
  record["variant"] = spec.variant();
  record["options"] = options;
  record["seed"] = spec.seed();
  if (!spec.seed_salt().empty()) record["seed_salt"] = spec.seed_salt();
  record["num_hands"] = spec.num_hands();
  record["time_control"] = {{"per_decision_ms", tc.per_decision_ms()},
                            {"match_bank_ms", tc.match_bank_ms()},
                            {"grace_ms", tc.grace_ms()}};
  record["fault_policy"] = {{"max_faults", max_faults}};
  record["bots"] = json::array();
  for (const Seat& s : seats) record["bots"].push_back(s.name);
  record["deals"] = json::array();
  json all_faults = json::array();

  int64_t request_id = 0;
  int64_t decisions_total = 0;
  int hands_played = 0;
  std::vector<v1::HandFinished> hand_results;
  absl::Status failure;

  while (!progress.Finished()) {
    if (cancelled && cancelled()) {
      failure = absl::CancelledError("the match was cancelled");
      break;
    }
    MatchProgress::NextHand next = progress.Next();
    absl::StatusOr<std::unique_ptr<State>> started_hand = game->NewHand(next.deal, next.setup);
    if (!started_hand.ok()) {
      failure = started_hand.status();
      break;
    }
    std::unique_ptr<State> state = std::move(*started_hand);
    for (int s = 0; s < n; ++s) {
      seats[s].events_seen = 0;
      if (!seats[s].forfeited) seats[s].connection->Send(HandStartMessage(next, s));
    }
    // Spectators (MatchSpec.public_events) get what every seat sees alike.
    auto send_public = [&](int action_index, int seat) {
      const Observation view = PublicView(*state);
      v1::MatchEvent event;
      v1::PublicAction* pa = event.mutable_public_action();
      pa->set_hand_index(next.hand_index);
      pa->set_action_index(action_index);
      pa->set_seat(seat);
      if (action_index >= 0 && action_index < static_cast<int>(view.history.size()))
        pa->set_action(view.history[action_index].second);
      pa->set_state_json(PublicViewToJson(view, /*with_history=*/false));
      on_event(event);
    };
    if (spec.public_events()) send_public(-1, -1);
    json decision_ms = json::array();
    json hand_faults = json::array();
    int action_index = 0;
    while (!state->IsTerminal()) {
      if (cancelled && cancelled()) break;  // reported just below
      const int s = state->CurrentSeat();
      Seat& seat = seats[s];
      Action chosen = 0;
      bool have_action = false;
      double elapsed_ms = 0;
      v1::FaultKind fault = v1::FAULT_KIND_UNSPECIFIED;
      std::string detail;
      if (!seat.forfeited) {
        Observation obs = state->Observe(s);
        v1::DecisionRequest request =
            MakeDecisionRequest(obs, ++request_id, next.hand_index, seat.events_seen);
        seat.events_seen = static_cast<int>(obs.history.size());
        int64_t limit_ms = tc.per_decision_ms();
        if (tc.match_bank_ms() > 0) limit_ms = std::min(limit_ms, seat.bank_left_ms);
        request.set_time_left_ms(limit_ms);
        request.set_bank_left_ms(tc.match_bank_ms() > 0 ? seat.bank_left_ms : 0);
        const absl::Time deadline =
            absl::Now() + absl::Milliseconds(limit_ms) + absl::Milliseconds(tc.grace_ms());
        BotReply reply = co_await DecisionOf(seat.connection.get(), request, deadline);
        elapsed_ms = absl::ToDoubleMilliseconds(reply.elapsed);
        ++seat.decisions;
        seat.total_ms += elapsed_ms;
        seat.max_ms = std::max(seat.max_ms, elapsed_ms);
        if (seat.decisions_metric) seat.decisions_metric->Increment();
        if (seat.latency_metric) seat.latency_metric->Observe(elapsed_ms / 1000.0);
        // Charge the bank: the network's share (bounded by the fastest answer
        // and by the grace) is not the bot's time.
        if (reply.kind == BotReply::Kind::kDecision)
          seat.fastest = std::min(seat.fastest, reply.elapsed);
        absl::Duration network =
            std::min(seat.fastest == absl::InfiniteDuration() ? absl::ZeroDuration() : seat.fastest,
                     absl::Milliseconds(tc.grace_ms()));
        if (tc.match_bank_ms() > 0) {
          int64_t charged = absl::ToInt64Milliseconds(std::max(absl::ZeroDuration(), reply.elapsed - network));
          seat.bank_left_ms = std::max<int64_t>(0, seat.bank_left_ms - charged);
        }
        switch (reply.kind) {
          case BotReply::Kind::kDecision: {
            absl::StatusOr<Action> parsed = game->ParseAction(reply.action);
            if (!parsed.ok()) {
              fault = v1::FAULT_KIND_MALFORMED;
              detail = absl::StrCat("unparsable action '", reply.action.substr(0, 80), "'");
            } else {
              ActionList legal;
              state->LegalActions(&legal);
              if (legal.Contains(*parsed)) {
                chosen = *parsed;
                have_action = true;
                seat.timeouts_in_row = 0;
              } else {
                fault = v1::FAULT_KIND_ILLEGAL_ACTION;
                detail = absl::StrCat("illegal action '", reply.action, "' in phase ",
                                      state->PhaseName());
              }
            }
            break;
          }
          case BotReply::Kind::kTimeout:
            fault = v1::FAULT_KIND_TIMEOUT;
            detail = absl::StrCat("no answer within ", limit_ms, " ms + ", tc.grace_ms(),
                                  " ms grace");
            break;
          case BotReply::Kind::kMalformed:
            fault = v1::FAULT_KIND_MALFORMED;
            detail = reply.detail;
            break;
          case BotReply::Kind::kDisconnected:
            fault = v1::FAULT_KIND_DISCONNECT;
            detail = reply.detail;
            break;
        }
      }
      if (!have_action) {
        chosen = FallbackAction(*state, spec, next.hand_index, action_index);
        if (fault != v1::FAULT_KIND_UNSPECIFIED) {
          v1::Fault f;
          f.set_seat(s);
          f.set_kind(fault);
          f.set_hand_index(next.hand_index);
          f.set_action_index(action_index);
          f.set_detail(detail);
          f.set_fallback_action(game->ActionToString(chosen));
          ++seat.faults;
          if (metrics_)
            metrics_->faults.Add({{"bot", seat.name}, {"kind", FaultKindName(fault)}}).Increment();
          hand_faults.push_back(FaultJson(f));
          all_faults.push_back(FaultJson(f));
          v1::MatchEvent event;
          *event.mutable_fault() = f;
          logging::Warning("referee", "fault",
                           {{"match", spec.match_id()}, {"seat", s}, {"bot", seat.name},
                            {"kind", FaultKindName(fault)}, {"hand", next.hand_index},
                            {"action", action_index}, {"detail", detail},
                            {"faults", seat.faults}});
          seat.timeouts_in_row = fault == v1::FAULT_KIND_TIMEOUT ? seat.timeouts_in_row + 1 : 0;
          const int max_in_row = spec.fault_policy().max_timeouts_in_row();
          if ((max_faults > 0 && seat.faults >= max_faults) ||
              (max_in_row > 0 && seat.timeouts_in_row >= max_in_row)) {
            logging::Warning("referee", "bot forfeited",
                             {{"match", spec.match_id()}, {"seat", s}, {"bot", seat.name},
                              {"faults", seat.faults}, {"max_faults", max_faults}});
            seat.forfeited = true;
            co_await FinishOf(seat.connection.get(), absl::Now() + absl::Milliseconds(100));
          }
          on_event(event);
        }
      }
      state->Apply(chosen);
      if (spec.public_events()) send_public(action_index, s);
      decision_ms.push_back(std::round(elapsed_ms * 1000) / 1000);
      ++action_index;
      ++decisions_total;
    }

    if (!state->IsTerminal()) {
      failure = absl::CancelledError("the match was cancelled");
      break;
    }
    HandResult result = state->Result();
    HandRecord hand_record = RecordOf(*game, *state, next.seed);
    hand_record.scores = result.scores;
    // Serialized once for the match record, and once for every seat's
    // HandResult without the hand's seed: a seat learns the deal it has just
    // played and nothing from which another deal could be computed
    // (docs/security.md, "Secret deals").
    const std::string hand_record_json = HandRecordToJson(hand_record);
    std::string seat_record_json;
    if (!spec.withhold_hand_records()) {
      HandRecord seat_record = hand_record;
      seat_record.seed.reset();
      seat_record_json = HandRecordToJson(seat_record);
    }
    json hand_json = json::parse(hand_record_json);
    hand_json["hand_index"] = next.hand_index;
    if (result.redeal) hand_json["redeal"] = true;
    if (result.redeal && result.counts_as_hand) hand_json["counts_as_hand"] = true;
    hand_json["decision_ms"] = std::move(decision_ms);
    hand_json["faults"] = std::move(hand_faults);
    record["deals"].push_back(std::move(hand_json));
    if (metrics_) metrics_->hands.Add({{"variant", spec.variant()}}).Increment();
    if (!result.redeal || result.counts_as_hand) ++hands_played;

    // The same HandResult for every seat: built once.
    v1::RefereeMessage hand_result;
    {
      v1::HandResult* hr = hand_result.mutable_hand_result();
      hr->set_hand_index(next.hand_index);
      for (int x : result.scores) hr->add_scores(x);
      for (int x : result.radli) hr->add_radli(x);
      hr->set_declarer(result.declarer);
      hr->set_contract(result.contract);
      hr->set_partner(result.partner);
      hr->set_redeal(result.redeal);
      hr->set_counts_as_hand(result.redeal && result.counts_as_hand);
      if (!spec.withhold_hand_records()) hr->set_record_json(seat_record_json);
    }
    for (int s = 0; s < n; ++s) {
      if (!seats[s].forfeited) seats[s].connection->Send(hand_result);
    }
    v1::MatchEvent event;
    v1::HandFinished* hf = event.mutable_hand_finished();
    hf->set_hand_index(next.hand_index);
    for (int x : result.scores) hf->add_scores(x);
    hf->set_redeal(result.redeal);
    hf->set_counts_as_hand(result.redeal && result.counts_as_hand);
    hf->set_decisions(action_index);
    hand_results.push_back(*hf);
    on_event(event);
    if (absl::Status s = progress.Record(result); !s.ok()) {
      failure = s;
      break;
    }
  }

  const std::vector<int64_t> totals = progress.Totals();
  for (int s = 0; s < n; ++s) {
    if (!seats[s].forfeited && failure.ok()) {
      v1::RefereeMessage m;
      v1::MatchResult* mr = m.mutable_match_result();
      for (int64_t t : totals) mr->add_totals(t);
      for (const Seat& t : seats) mr->add_faults(t.faults);
      mr->set_forfeited(false);
      mr->set_ended_early(progress.ended_early());
      seats[s].connection->Send(m);
    }
  }
  const absl::Time finish_deadline = absl::Now() + options_.finish_timeout;
  for (Seat& seat : seats) co_await FinishOf(seat.connection.get(), finish_deadline);
  if (metrics_) metrics_->active_matches.Decrement();

  if (!failure.ok()) {
    logging::Log(absl::IsCancelled(failure) ? logging::Level::kInfo : logging::Level::kWarning,
                 "referee", absl::IsCancelled(failure) ? "match cancelled" : "match failed",
                 {{"match", spec.match_id()}, {"variant", spec.variant()},
                  {"hands_played", hands_played}, {"error", failure.ToString()}});
    if (metrics_) {
      metrics_->matches
          .Add({{"variant", spec.variant()},
                {"outcome", absl::IsCancelled(failure) ? "cancelled" : "failed"}})
          .Increment();
    }
    co_return failure;
  }

  v1::MatchFinished finished;
  for (int64_t t : totals) finished.add_totals(t);
  record["totals"] = totals;
  record["hands_played"] = hands_played;
  if (!progress.ended_early().empty()) {
    record["ended_early"] = progress.ended_early();
    finished.set_ended_early(progress.ended_early());
  }
  record["faults"] = std::move(all_faults);
  record["seats"] = json::array();
  for (int s = 0; s < n; ++s) {
    const Seat& seat = seats[s];
    v1::SeatSummary* summary = finished.add_seats();
    summary->set_name(seat.name);
    summary->set_total(totals[s]);
    summary->set_faults(seat.faults);
    summary->set_forfeited(seat.forfeited);
    summary->set_decisions(seat.decisions);
    summary->set_mean_decision_ms(seat.decisions ? seat.total_ms / seat.decisions : 0);
    summary->set_max_decision_ms(seat.max_ms);
    summary->set_hello_name(seat.connection->hello_name());
    summary->set_hello_version(seat.connection->hello_version());
    record["seats"].push_back({{"name", seat.name},
                               {"endpoint", seat.endpoint},
                               {"hello_name", summary->hello_name()},
                               {"hello_version", summary->hello_version()},
                               {"total", totals[s]},
                               {"faults", seat.faults},
                               {"forfeited", seat.forfeited},
                               {"decisions", seat.decisions},
                               {"mean_decision_ms", summary->mean_decision_ms()},
                               {"max_decision_ms", seat.max_ms}});
  }
  for (v1::HandFinished& h : hand_results) *finished.add_hand_results() = std::move(h);
  finished.set_hands(hands_played);
  finished.set_decisions(decisions_total);
  finished.set_duration_s(absl::ToDoubleSeconds(absl::Now() - started));
  finished.set_record_json(record.dump());
  if (metrics_) metrics_->matches.Add({{"variant", spec.variant()}, {"outcome", "ok"}}).Increment();
  if (logging::Enabled(logging::Level::kInfo)) {
    std::string totals_text;
    for (int64_t t : totals) absl::StrAppend(&totals_text, totals_text.empty() ? "" : ",", t);
    logging::Info("referee", "match finished",
                  {{"match", spec.match_id()}, {"variant", spec.variant()},
                   {"hands", hands_played}, {"decisions", decisions_total},
                   {"duration_s", finished.duration_s()}, {"totals", totals_text},
                   {"ended_early", progress.ended_early()}});
  }
  co_return finished;
}

}  // namespace tarock
