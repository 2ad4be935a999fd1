// The arena's scheduler: the bots, the continuous ladders and the tournaments,
// and the workers that run their matches on a pool of referees, rate the bots
// and store every result.
//
// One class, one file per concern (arena/scheduler/):
//   scheduler.cc     construction, Start/Stop, the admin token, and running
//                    matches on the referees (dispatcher, workers, retries)
//   bots.cc          registering, updating, retiring and listing bots
//   ladders.cc       rating ladders and their matchmaking
//   tournaments.cc   tournaments (round robin, gauntlet; duplicate by default)
//   queries.cc       what the API and pages read (leaderboards, matches, stats)
//   dial_in.cc       seats of bots that dial in; relayed seats' capabilities
//   play_matches.cc  play matches (a person's seat, relayed)
//   commits.cc       the commit writer, rating a match, --verify_ratings
//   test_job.cc      tests (`tarock compare` as an arena job)
// Helpers they share: scheduler_internal.h. Deal seeds: deal_seal.h.
//
// Life of a match: it is written to the store as "pending" with its complete
// MatchSpec (seats, seed, time control) before anything runs; a worker marks it
// "running" (in memory: a match runs again after a crash anyway) on a referee
// and asks that referee to run it. A referee that fails (UNAVAILABLE or another
// transport error) is rested for a while and the same spec, with the same
// match id, goes to another (the attempts are stored); a match that cannot run
// (a bad spec, a bot that cannot be reached) is marked "failed". The worker
// hands a result to the writer thread and takes its next match at once; the
// writer commits each result with its ratings in one transaction (several
// results share one when they queue up) that does nothing if the match is
// already done, so it is never counted twice. After a crash, Start() puts
// every match that is not done or failed back in the queue (a result not yet
// committed runs again), and running ladders resume.
//
// Several arenas on one database (SchedulerOptions::lease > 0): no match is
// queued in memory by the arena that made it. Every arena claims matches from
// the database (Store::ClaimMatches) as its workers free up, holding a lease
// on each that its dispatcher renews every third of the lease; a result is
// committed only by the holder of the match's lease, and once. The leases of
// an arena that dies expire and the others claim its matches. Ladders and
// tournaments live in the database: any arena may start or stop them, and the
// one arena holding the "dispatcher" lease makes the ladders' matches (another
// takes over when it dies). Ratings follow the one commit order of the
// database (Store serialises commits), whichever arena commits. Tests and
// play matches stay with one arena: tests are refused in this mode.
//
// Matchmaking (ladders): the next match is built around the bot the ratings
// know least (fewest queued or running matches, then highest sigma, then fewest rated
// matches), and filled with the bots that teach the most about it: uncertain
// bots close to it in mu. A bot never holds two seats unless the ladder allows
// self-play; with separate_owners, bots of one owner are kept apart when there
// are enough others. Seat order is shuffled (from other random bits than the
// deal's, which are secret until the deal is public: deal_seal.h).
//
// Ratings: per bot and variant (RatingModel, arena/rating), ranks from each
// match's totals with forfeited bots last. A table of a duplicate set (a
// tournament's rotations, a ladder's set) is rated only once its deal is
// public (DealPublic: no twin pending or running), in the store's commit that
// finds it so (Store::CommitMatches), so no rating says how a table went
// while its twin still plays the deal. A bot holding several seats (self-
// play) is rated once, on the mean of its seats' totals.
//
// Thread-safety: thread-safe. Public methods may be called from any thread
// (the gRPC and HTTP handlers); the workers are internal.

#ifndef TAROCK_ARENA_SCHEDULER_SCHEDULER_H_
#define TAROCK_ARENA_SCHEDULER_SCHEDULER_H_

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "referee/net/endpoint_policy.h"
#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/rating/margin_rating.h"
#include "arena/rating/rating.h"
#include "arena/scheduler/duplicate_design.h"
#include "arena/scheduler/bot_health.h"
#include "arena/scheduler/dial_in.h"
#include "arena/scheduler/live_hub.h"
#include "arena/scheduler/referee_client.h"
#include "arena/scheduler/relay_gate.h"
#include "arena/scheduler/test_job.h"
#include "arena/store/storage_quota.h"
#include "arena/store/store.h"
#include "prometheus/registry.h"
#include "tarock/v1/arena.pb.h"

namespace tarock::arena {

struct SchedulerOptions {
  std::vector<std::string> referees;  // HOST:PORT of each tarock-referee (see SetReferees)
  int max_parallel = 4;               // matches in flight at once
  int max_attempts = 5;               // referees tried per match before it fails
  absl::Duration referee_rest = absl::Seconds(3);  // a failed referee is skipped this long
  std::string admin_token;            // empty: ladders and tournaments need no token...
  // ...unless this is set: then, without an admin token, every administrative
  // call is refused (an arena listening beyond loopback with no token).
  bool refuse_admin_without_token = false;
  // A finished match is committed at most this long after it ends, in one
  // transaction with the others that finished meanwhile (up to
  // max_commit_batch): one disk write of the pages they share instead of one
  // each. A kill in between runs those matches again. Zero: commit at once.
  absl::Duration commit_delay = absl::Milliseconds(50);
  int max_commit_batch = 32;
  RatingOptions rating;
  MarginRatingOptions margin;  // the margin model (duplicate ladders; docs/ratings.md)
  int max_play_matches = 16;          // play matches (a person's seat) at once
  // The arena's key for the bots' referee secrets (tarock/transport/referee_proof.h):
  // non-empty, every seat of every match carries the proof of its bot's
  // secret, and AddBot returns the secret. Empty: no proofs.
  std::string referee_secret_key;
  // Which bot endpoints may be registered (referee/net/endpoint_policy.h);
  // the default allows every address.
  net::EndpointPolicy endpoint_policy;
  // Several arenas on one database (see the class comment): positive, matches
  // are claimed from the database with leases this long; zero, the single
  // arena (matches queued in memory). lease_owner names this arena uniquely
  // among those sharing the database.
  absl::Duration lease = absl::ZeroDuration();
  std::string lease_owner;
  // The bench for bots that cannot be reached or stop answering (backoff of
  // their probes, and what makes a seat unresponsive): bot_health.h.
  BotHealthOptions health;
  // Ladder matches: how long the referee waits for the bots to connect
  // (MatchSpec.connect_timeout_ms; zero: the referee's own, 10 s by default),
  // and the timeouts in a row that forfeit a seat (FaultPolicy.
  // max_timeouts_in_row, unless the ladder sets its own; 0: never): a bot
  // nobody answers for, or one that goes silent, holds a ladder slot seconds,
  // not minutes, before it is benched.
  absl::Duration ladder_connect_timeout = absl::Seconds(3);
  int ladder_timeouts_in_row = 3;
  // The arena's address as entrants reach it (--public_address, else the
  // listen address): the lines handed out to them name it (events.cc).
  // public_tls: its listener speaks TLS (the lines add --tls_ca).
  std::string public_address;
  bool public_tls = false;
  // What one owner and one network may store (arena/store/storage_quota.h):
  // AddBot counts a new bot against both.
  StorageLimits storage;
};

// A match with one seat played through the arena's seat relay
// (arena/play/seat_relay.h): a person in the browser. See StartPlayMatch.
struct PlayMatchRequest {
  std::string match_id;  // chosen by the caller, who keys the relay by it; [A-Za-z0-9_.-]
  std::string variant;
  std::map<std::string, std::string> options;
  std::vector<std::string> seats;  // bot names in seat order; "" for the relayed seat
  std::string relay_endpoint;      // HOST:PORT of the arena's own Bot service
  int num_hands = 0;               // a multiple of the seats; 0: one per seat
  uint64_t seed = 0;                // 0: a secret random seed (deal_seal.h)
  std::string client;               // the requester's address, for the audit log
  v1::TimeControl time_control;
  v1::FaultPolicy fault_policy;
};

// The bot row that stands for a person's seat in stored play matches
// (retired, so no ladder, tournament or leaderboard sees it; the name is
// reserved).
inline constexpr char kHumanBotName[] = "human";

// A rating resting on fewer rated matches than this is marked provisional on
// the leaderboards (LeaderboardEntry.provisional).
inline constexpr int kProvisionalMatches = 10;

// Asks a listening bot whether it serves (grpc.health.v1), for the bench.
class BotProber {
 public:
  virtual ~BotProber() = default;
  // OK when the bot at `endpoint` answers SERVING before `deadline`.
  virtual absl::Status Probe(const std::string& endpoint, absl::Time deadline) = 0;
};

// The columns of `events export` as CSV (docs/events.md, "Export for
// grading"), in order.
extern const std::vector<std::string> kEventExportColumns;

// The lines handed to an entrant (events.cc): the token as an environment
// variable, then `python3 -m tarock_bot register ...` naming `arena`.
std::string EntrantConnectLine(const std::string& slug, const std::string& token,
                               const std::string& entrant, const v1::EventConfig& config,
                               const std::string& arena, bool tls);

class Scheduler {
 public:
  // `store` must outlive the scheduler; `registry` may be null.
  Scheduler(Store* store, RefereeClient* client, SchedulerOptions options,
            prometheus::Registry* registry);
  ~Scheduler();  // Stop()s

  // Replaces the pool of referees (HOST:PORT each; the arena's --referees
  // with dns: names resolved, arena/scheduler/referee_resolver.h). Referees
  // that joined get matches from now on; those that left get no new match,
  // while matches running on them finish there (or, when that referee fails,
  // are retried on the new pool as always). A referee kept keeps its rest
  // after a failure. Any time, from any thread.
  void SetReferees(std::vector<std::string> referees);

  // Re-queues unfinished matches, resumes running ladders, starts the workers
  // (Load first, unless it was called).
  absl::Status Start();
  // What Start reads from the store before its threads run: the unfinished
  // matches queued again, the running ladders, the sealed tables held again
  // (RestoreSealedTables). Reads answer as they will after Start from then
  // on: a server that starts before Start would otherwise show, for a moment,
  // the tables of a sealed deal that had ended running and their twins
  // pending (docs/security.md, "Secret deals"). Once: later calls, and a
  // Start after a Stop, load nothing again.
  void Load();
  // Stops the workers: matches in flight are cancelled and left to run again
  // after the next Start().
  void Stop();

  // Bots. Errors: INVALID_ARGUMENT, ALREADY_EXISTS, NOT_FOUND, PERMISSION_DENIED;
  // AddBot RESOURCE_EXHAUSTED beyond the storage bounds of the owner or of
  // the network of `client` (the caller's address, "" unknown; the bot
  // remembers that network).
  absl::StatusOr<v1::AddBotResponse> AddBot(const v1::AddBotRequest& request,
                                            const std::string& client = "");
  absl::StatusOr<v1::BotInfo> UpdateBot(const v1::UpdateBotRequest& request);
  absl::StatusOr<v1::BotInfo> RetireBot(const v1::RetireBotRequest& request);
  v1::ListBotsResponse ListBots(const v1::ListBotsRequest& request);
  absl::StatusOr<v1::BotInfo> GetBot(const std::string& name, bool with_history);

  // Ladders: one per variant and event at a time.
  absl::StatusOr<v1::LadderInfo> StartLadder(const v1::StartLadderRequest& request);
  absl::StatusOr<v1::LadderInfo> StopLadder(const v1::StopLadderRequest& request);
  v1::ListLaddersResponse ListLadders();

  // Tournaments.
  absl::StatusOr<v1::TournamentInfo> RunTournament(const v1::RunTournamentRequest& request);
  absl::StatusOr<v1::TournamentInfo> GetTournament(int64_t id);

  // The ratings of `variant` in the event `event` (its slug; "" the open
  // event) under `rating_model` ("place", "margin"; "": the model of the
  // pool's newest ladder, "place" when it has none). INVALID_ARGUMENT for an
  // unknown variant or model (one line listing the valid ones).
  absl::StatusOr<v1::LeaderboardResponse> Leaderboard(const std::string& variant,
                                                      const std::string& event = "",
                                                      const std::string& rating_model = "");

  // Events (events.cc, docs/events.md): classes and competitions with their
  // own field, ladders, ratings, deadline and final. CreateEvent needs the
  // admin token; an event's organiser token manages that event only (the
  // admin token any); entrants join with the invite code. Errors:
  // INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED,
  // FAILED_PRECONDITION (registration closed, the event frozen),
  // RESOURCE_EXHAUSTED (the event's limits). A refused call stores nothing.
  absl::StatusOr<v1::CreateEventResponse> CreateEvent(const v1::CreateEventRequest& request);
  v1::ListEventsResponse ListEvents();
  absl::StatusOr<v1::EventInfo> GetEvent(const v1::GetEventRequest& request);
  absl::StatusOr<v1::JoinEventResponse> JoinEvent(const v1::JoinEventRequest& request);
  absl::StatusOr<v1::EventRosterResponse> EventRoster(const v1::EventRosterRequest& request);
  absl::StatusOr<v1::RegisterRosterResponse> RegisterRoster(const v1::RegisterRosterRequest& request);
  absl::StatusOr<v1::JoinEventResponse> ReissueEntrantToken(
      const v1::ReissueEntrantTokenRequest& request);
  absl::StatusOr<v1::EventInfo> EnterHouseBot(const v1::EnterHouseBotRequest& request);
  absl::StatusOr<v1::EventInfo> WithdrawBot(const v1::WithdrawBotRequest& request);
  absl::StatusOr<v1::ExportEventResponse> ExportEvent(const v1::ExportEventRequest& request);
  absl::StatusOr<v1::EventInfo> CloseEvent(const v1::CloseEventRequest& request);
  // Moves every event along its schedule at `now`: opens registration and
  // starts its ladders, freezes its entries at the deadline and starts the
  // final, records the results when the final is done. The dispatcher calls
  // it about once a second; idempotent.
  void EventTick(absl::Time now);
  // The event id of a slug ("" and "open": 0, the open event).
  absl::StatusOr<int64_t> EventIdOf(const std::string& slug);
  // Whether the bot is held at a frozen version now: entered (not
  // withdrawn) in an event whose final runs, with uploaded versions (a bot
  // host plays the one ready at the freeze). The gateway refuses its own
  // token then (DialInHub::SetFrozen).
  bool HeldAtFreeze(int64_t bot_id);
  // The slug of an event id ("" for 0).
  std::string EventSlugOf(int64_t id);
  // Secret deals (deal_seal.h): whether `match`'s deal may be shown (seed,
  // salt, record): it is finished and no other table dealt from its seed is
  // pending or running.
  // This is the one rule of when anything of a match's play is public: its
  // seed and salt, its record (every card and action, the faults' details),
  // and its result (totals, places, faults, forfeits), on every route (HTTP,
  // gRPC, pages, exports, standings, statistics). The store's
  // kDealPublicSql is the same rule for aggregates computed in SQL.
  bool DealPublic(const MatchRow& match);
  // DealPublic of each match, with one store query per distinct seed.
  std::vector<bool> DealsPublic(const std::vector<MatchRow>& matches);
  // The stored record of a finished match whose deal is public;
  // FAILED_PRECONDITION before (every public read of a record goes here).
  absl::StatusOr<std::string> PublicRecordOf(const MatchRow& match);
  // The running matches' public view for spectators (live_hub.h).
  LiveHub& live() { return live_; }
  absl::StatusOr<v1::ArenaMatch> GetMatch(const std::string& id, bool with_record);
  // Whether a match `id` is stored: one read, the same for every status (the
  // match page's 404; GetMatch's work would differ by what may be shown).
  bool MatchExists(const std::string& id) { return store_->GetMatch(id).ok(); }
  // The page of matches passing the filters, newest first. The bot filter is
  // a bot's name in any case, or else a case-insensitive part of names (every
  // bot containing it; NOT_FOUND when none does); the bots it matched are in
  // the response. An offset at or past the end is clamped to the start of
  // the last page (response.offset says which was used).
  absl::StatusOr<v1::ListMatchesResponse> ListMatches(const v1::ListMatchesRequest& request);
  // The bots (retired ones too) the match filter `filter` names: the one
  // whose name equals it in any case, or else every one whose name contains
  // it in any case. NOT_FOUND when none, INVALID_ARGUMENT when more than
  // kMaxBotsMatching.
  absl::StatusOr<std::vector<BotRow>> BotsMatching(const std::string& filter);
  static constexpr size_t kMaxBotsMatching = 100;
  v1::StatusResponse GetStatus();
  // Tournaments, newest first, with their match counts (no standings).
  v1::ListTournamentsResponse ListTournaments(int limit);
  // A bot's results per variant, as declarer and defender, decisions, faults by kind.
  absl::StatusOr<v1::BotStatsResponse> BotStats(const std::string& name);

  // A one-off play match (kind "play", never rated): stored like any other
  // and run at once on a referee, on a thread of its own (a person takes
  // minutes; the workers stay with the ladders and tournaments). Unfinished
  // play matches are marked failed at the next Start() (the person's session
  // lived in memory). Errors: INVALID_ARGUMENT, RESOURCE_EXHAUSTED (more than
  // max_play_matches at once), UNAVAILABLE (stopping).
  absl::StatusOr<v1::ArenaMatch> StartPlayMatch(const PlayMatchRequest& request);

  // Tests (`tarock compare` as an arena job; arena/scheduler/test_job.h):
  // StartTest stores the test and returns at once; the dispatcher makes its
  // matches block by block (kind "test", unrated) and feeds the sequential
  // test; a running test resumes after a restart. StopTest ends a running
  // test (result "stopped"). Errors: INVALID_ARGUMENT, NOT_FOUND,
  // PERMISSION_DENIED, FAILED_PRECONDITION (a retired bot; a test that ended).
  absl::StatusOr<v1::TestInfo> StartTest(const v1::StartTestRequest& request);
  absl::StatusOr<v1::TestInfo> GetTest(int64_t id, bool with_path);
  v1::ListTestsResponse ListTests(const v1::ListTestsRequest& request);
  absl::StatusOr<v1::TestInfo> StopTest(const v1::StopTestRequest& request);

  // The audit log (store.h AuditRow), newest first; needs the admin token.
  // At most 1,000 entries per call (default 100); page with before_id.
  absl::StatusOr<v1::ListAuditResponse> ListAudit(const v1::ListAuditRequest& request);
  // Whether `token` is the admin token (false when there is none).
  bool IsAdminToken(const std::string& token) const;
  // OK when `token` may make administrative calls (the admin token, or none is set).
  absl::Status CheckAdmin(const std::string& token) const;

  const RatingModel& rating_model() const { return model_; }
  const MarginRatingModel& margin_model() const { return margin_; }

  // Bots that dial in (docs/dial-in.md): `seats` (outliving the scheduler)
  // says who is online and relays their seats; referees reach those seats at
  // `relay_endpoint` (the arena's Bot service). A match with a dial-in bot
  // that is offline waits up to `wait` for it, then fails saying so; ladders
  // seat only online dial-in bots. Call before Start(); without it, dial-in
  // bots are never seated.
  void SetDialIn(DialInSeats* seats, std::string relay_endpoint, absl::Duration wait);
  // Hosted bots (docs/hosting.md; arena/scheduler/hosted.cc): with `versions`
  // (outliving the scheduler), a committed seat whose Hello names a hosted
  // version of its own bot ("hosted:vID ...", sent by tarock-bothost) records
  // that version. Call before Start().
  void SetHostedVersions(std::function<bool(int64_t version_id, int64_t bot_id)> versions) {
    hosted_versions_ = std::move(versions);
  }
  // A host's account of a hosted seat (HostedBots::AwaitSeatAccount): the
  // decisions (hand_index, action_index) its bot took more than half its
  // time on or never answered; nullopt when none came by the deadline.
  using SeatAccounts = std::function<std::optional<std::vector<std::pair<int, int>>>(
      const std::string& match_id, int seat, absl::Time deadline)>;
  // With `accounts` (outliving the scheduler), a finished match whose hosted
  // seat has timeouts waits up to `wait` for its host's account of the seat,
  // and is voided ("host lost", not charged) when a timeout is not among the
  // decisions the bot was slow on, or no account came: the host stalled, or
  // its network did, while its connection stayed up (docs/hosting.md, "A
  // host that stalls"). Without it such timeouts are the bot's. Call before
  // Start().
  void SetHostedSeatAccounts(SeatAccounts accounts, absl::Duration wait) {
    seat_accounts_ = std::move(accounts);
    seat_account_wait_ = wait;
  }
  // The direct route for dial-in bots whose SDK supports it (docs/dial-in.md,
  // "Routes"): such a bot plays its seat on the referee itself (a seat
  // ticket, SeatGateway.Join) instead of through the arena's relay, so no
  // relay sits on the decision's path. The bot dials the referee at the
  // address the arena uses, or at `bot_addresses[that address]` when given
  // (referees known to the arena by a private address). With a positive
  // `join_wait` (--dial_in_route=auto) a referee waits that long for the bot
  // and then dials the relay instead, and the bot's connection stays relayed
  // (DialInSeats::CanJoinReferee); zero: the seat waits for the join until
  // the referee's connect timeout (direct). Call before Start().
  void SetDirectDialIn(std::map<std::string, std::string> bot_addresses,
                       absl::Duration join_wait = absl::ZeroDuration());
  // The arena's seat relay (relay_gate.h; outliving the scheduler): before
  // each attempt every relayed seat (a play match's person, a dial-in bot's
  // relayed seat) gets a fresh capability that only that attempt's referee
  // learns. Without it a relayed seat cannot be opened: such matches fail.
  // Call before Start().
  void SetRelayGate(RelayGate* gate) { relay_gate_ = gate; }
  // How benched bots are probed (bot_health.h): for a listening bot, a gRPC
  // health check of its endpoint (arena/server; the scheduler has no gRPC).
  // Without one, a benched listening bot returns only when its backoff
  // passes and the next match that seats it works. Call before Start().
  void SetBotProber(BotProber* prober) { prober_ = prober; }

 private:
  struct Job {
    MatchRow match;
    v1::MatchSpec spec;
  };
  // A match a referee finished, waiting for the writer to commit it.
  struct Finished {
    Job job;
    v1::MatchFinished result;
    std::string referee;
    int attempts = 0;
    // Seats played (at some point) on a connection that was not a bot
    // host's (DialInSeats::PlayedUnhosted): no hosted version is recorded.
    std::vector<int> unhosted_seats;
  };
  // A match taken by a worker and not yet committed or failed.
  struct InFlight {
    std::string referee;  // empty until a referee is picked
    int attempts = 0;
    int64_t ladder_id = 0;
  };
  struct Ladder {
    int64_t id = 0;
    int64_t event_id = 0;  // config.event's id
    int weight = 1;        // its event's share of the slots (EventConfig.weight)
    v1::LadderConfig config;
    LadderFormat format = LadderFormat::kMatch;          // config.format ("" stored: match)
    RatingModelKind model = RatingModelKind::kPlace;     // config.rating_model ("": place)
    int64_t created = 0;  // matches created so far (for ids and seeds)
    int64_t done_at_start = 0;
  };
  struct Metrics;
  // A stored ladder with its event and weight (created: 0).
  Ladder LadderOf(const LadderRow& row);

  // Matches a running ladder keeps queued or running: the slots and a few spares.
  int LadderQueueTarget() const;
  // Several arenas (options_.lease > 0).
  bool Shared() const { return options_.lease > absl::ZeroDuration(); }
  int LeaseSeconds() const;
  // A round of the dispatcher's shared work before matchmaking: renews this
  // arena's leases when due, takes or keeps the dispatcher lease (returned),
  // and reloads the running ladders with their counts from the database.
  bool SharedRound();
  // Claims matches from the database for the free worker slots and queues them.
  void ClaimForFreeSlots();
  // Queues a job for the workers (and counts its bots busy for matchmaking).
  void Enqueue(Job job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void WorkerLoop();
  void DispatcherLoop();
  void WriterLoop();
  // Runs the match on the referees until it finishes (then it is queued for
  // the writer: returns true), fails (sets `*failed` when given), or the
  // scheduler stops; counted in jobs_running_ meanwhile (the writer commits
  // at once when none runs).
  bool RunJob(Job job, bool* failed = nullptr);
  // A worker's next job from the queue (not empty), with its in-flight entry;
  // `seed`: one of the withheld tables of that seed first, if any is queued.
  Job TakeJob(std::optional<uint64_t> seed = std::nullopt) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Every worker holds a sealed slot (sealed_slots_) and a job is queued:
  // marks the holders that take a next job instead of waiting for their deal
  // to turn public: each one with a twin of its own deal queued (as many as
  // are queued).
  void GrantLeaves() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A worker whose table `id` ended while its deal is sealed (or that took
  // such a slot restored at Start) holds the slot until the deal is public
  // (sealed_slots_ loses the entry), or until GrantLeaves or the patience lets
  // it go: then `*next` is the job it runs next (a twin of its deal first).
  // Returns at once when `id` has no entry.
  void HoldSealedSlot(const std::string& id, std::optional<Job>* next)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A worker is done with a table of `bots` (of ladder `ladder_id`, or 0):
  // they are free for matchmaking, and the dispatcher is told when a ladder
  // wants topping up.
  void ReleaseTable(const std::vector<int64_t>& bots, int64_t ladder_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Start (one arena): the tables that had ended before a restart while
  // their deal is still sealed are shown as they were (running; their end,
  // counted in the metrics and the live feed, once the deal is public), and
  // as many of their slots as there are workers are held again (WorkerLoop
  // takes them first): else the next set would start beside their twins,
  // telling which had ended (docs/security.md, "Secret deals").
  void RestoreSealedTables() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // RunJob without the count. A match that failed (not stopping) sets
  // `*failed` (its end is then published by FailMatch).
  bool RunOnReferees(Job job, bool* failed);
  // Marks the match failed with `why`, books its set when that was its last
  // table, and publishes its end (PublishEnd).
  void FailMatch(const Job& job, const std::string& why);
  // Deals `job` afresh for its next attempt: a new sealed seed (deal_seal.h)
  // in the store and in `job` (docs/security.md, "Secret deals").
  absl::Status Redeal(Job& job);
  // A tournament match with a benched bot (bot_health.h) waits for it to
  // answer a probe within dial_in_wait_ (counted from when the tournament
  // first waited for that bot), saying so on the tournament; FAILED_PRECONDITION
  // with the reason once the wait is over, CANCELLED when stopping.
  absl::Status AwaitBenchedBots(const Job& job);
  // Hands a referee's public event of a running match to the live hub.
  void ForwardLiveEvent(const std::string& match_id, const v1::MatchEvent& event);
  // Dial-in seats of `job`: waits for their bots, prepares their seats on
  // the relay and points the spec at it (the seats prepared go to `prepared`).
  absl::Status PrepareDialIn(Job& job, std::vector<int>* prepared);
  // A fresh capability per relayed seat for the coming attempt (relay_gate.h),
  // in the seat's referee_proof.
  absl::Status AuthorizeRelayedSeats(Job& job, const std::vector<int>& relayed);
  void ReleaseDialIn(const std::string& match_id, const std::vector<int>& prepared);
  // For an attempt on `referee`: each prepared dial-in seat whose bot can,
  // goes the direct route with a fresh ticket; the others stay relayed.
  // `connect_timeout_ms` is the match's own (MatchSpec.connect_timeout_ms, 0:
  // the referee's): when a seat goes direct with a relay fallback, the
  // attempt's is that plus the join wait, so the fallback still has its whole
  // connect time (a ladder's 3 s, as long as the default wait, left none).
  void RouteDialIn(Job& job, const std::vector<int>& prepared, const std::string& referee,
                   int32_t connect_timeout_ms);
  void EnqueueCommit(Finished finished);
  void CommitBatch(std::vector<Finished> batch);
  // A finished table's end as the public sees it: the live feed's
  // "finished" (and its spectators' "end"), tarock_arena_matches_total, the
  // hands and duration metrics, the referee client's RunMatch metrics
  // (RefereeClient::ReleaseHeldMetrics) and the running gauge. Now when its
  // deal is its own; for a table whose deal other tables share
  // (withhold_hand_records) once no table of its seed is unfinished
  // (FlushSealedEnds, after every commit batch and every failure): until then
  // it is shown as running everywhere (docs/security.md, "Secret deals").
  // `counted`: the match's metrics count it (false: committed before).
  void PublishEnd(const Job& job, bool done, bool counted, int hands, double duration_s);
  void FlushSealedEnds();
  // The running gauge: matches in flight and sealed ends held.
  void SetRunningGauge() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The hosted version of each seat of a result (hosted.cc).
  void RecordHostedVersions(const v1::MatchFinished& finished, const std::vector<int>& unhosted,
                            MatchResultRow* result);
  // The hosted seats of a finished attempt that lost their host (hosted.cc):
  // the seat's host connection ended during the attempt (TakeHostLost) and
  // the seat got a fault of being away (a timeout, or a disconnect the
  // referee or the relay recorded for a missing player; not an Absent the
  // host sent with its bot's cause: a bot that broke a limit in a live host
  // is charged). Empty when none did; else the reason ("the bot host of
  // seat 2 (BOT) was gone for a whole decision"). Also a hosted seat whose
  // host stalled (SetHostedSeatAccounts): it waits for the host's account.
  std::string HostLostSeats(const Job& job, const std::vector<int>& dial_in,
                            const v1::MatchFinished& finished);
  // An attempt the referee failed because a seat was unreachable
  // (UnreachableSeat: nothing was dealt): when that seat is a hosted bot's,
  // the reason, the host's: "the bot host of seat N (BOT) was gone ..." when
  // its host connection ended during the attempt, "... did not join the
  // seat in time" when it stayed connected (a host stopped, or starting, or
  // starved: the host joins the seat itself, before the bot's program sees
  // anything, so no program can make it late); else empty (a bot's own
  // process: benched as before).
  std::string HostLostUnreachable(const Job& job, const std::vector<int>& dial_in,
                                  const absl::Status& status);
  // Waits (up to dial_in_wait_) until every bot of `dial_in`'s seats is
  // online again; false when one is not (or the scheduler stops).
  bool AwaitDialInBack(const Job& job, const std::vector<int>& dial_in);
  // The next referee to try, or "" when all are resting.
  std::string PickReferee() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A bot a ladder match may seat, as matchmaking sees it.
  struct LadderCandidate {
    BotRow bot;
    Rating rating;    // place: OpenSkill's; margin: points a deal
    int matches = 0;  // rated matches (margin: sets)
    int busy = 0;     // matches queued or running
    bool hosted = false;  // runs in a fresh sandbox per match (may see a deal twice)
  };
  // The active bots that play `variant`, with their ratings under `model`
  // (reads the store).
  std::vector<LadderCandidate> LadderCandidates(const std::string& variant, int64_t event_id = 0,
                                                RatingModelKind model = RatingModelKind::kPlace);
  // Starts a ladder (StartLadder without the token check); `weight` its
  // event's share of the slots.
  absl::StatusOr<v1::LadderInfo> StartLadderLocked(v1::LadderConfig config, int64_t event_id,
                                                   int weight) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Stops a running ladder by its key (StopLadder without the token check).
  absl::StatusOr<v1::LadderInfo> StopLadderLocked(const std::string& key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Stores and queues a tournament's matches: `groups` index `field`, each
  // played `deals` times (in every rotation when duplicate).
  absl::StatusOr<v1::TournamentInfo> ScheduleTournament(
      const v1::RunTournamentRequest& r, const std::vector<BotRow>& field,
      const std::vector<std::vector<int>>& groups, const std::string& format, int64_t event_id);
  // The event for its organiser (or the admin); PERMISSION_DENIED otherwise.
  absl::StatusOr<EventRow> EventForOrganiser(const std::string& slug, const std::string& token);
  v1::EventInfo EventInfoOf(const EventRow& row, bool with_results);
  // The event's frozen field, entered and not withdrawn, not retired.
  std::vector<BotRow> EventField(int64_t event_id, std::vector<int64_t>* entrant_of = nullptr);
  // What an event's ladder in `variant` plays (docs/events.md): duplicate sets
  // rated on margins once `field` (EventField) can fill a set (2n bots, or n
  // when every one of them is hosted with versions: rotated), else matches
  // rated on places. Fills format, rating_model, bots, set_bots and note.
  v1::EventLadder PlanEventLadder(const std::vector<BotRow>& field, const std::string& variant);
  // An open ladder started with too few bots for a duplicate set
  // (LadderConfig.until_set) is replaced by a duplicate ladder once the open
  // field fills a set. Called by the dispatcher about once a second.
  void OpenLadderTick() ABSL_LOCKS_EXCLUDED(mu_);
  void StartFinal(EventRow& event);
  // Why `bot` would sit out a final frozen at `now` (docs/events.md): a
  // dial-in or hosted bot offline for longer than `window` (or never
  // connected), a listening bot the arena cannot reach now; "" when it plays.
  std::string AbsentFromFinal(const BotRow& bot, absl::Time now, absl::Duration window);
  // The next match of `ladder` among `candidates` (advances ladder.created;
  // not stored yet): one table for format match, every table of a duplicate
  // set (one sealed seed) for duplicate; FAILED_PRECONDITION when too few
  // bots play it or max_matches is reached.
  absl::StatusOr<std::vector<Job>> MakeLadderJobs(Ladder& ladder,
                                                  std::vector<LadderCandidate> candidates);
  // Whether a finished match is rated on places: every rated kind but the
  // tables of a margin ladder.
  bool PlaceRated(const MatchRow& match);
  // Books the duplicate set of a finished ladder table (margin ladders) once
  // every table of it is finished: Store::BookSet with RateSet.
  void BookSetOf(const MatchRow& match);
  // Runs a play match to its end on the calling thread (see StartPlayMatch).
  void RunPlayJob(Job job);
  // Tests (test_job.cc), on the dispatcher thread (or in Start before it runs):
  // loads the running tests not loaded yet; consumes finished blocks, records
  // progress and ends decided tests, and returns the next blocks' matches (stored,
  // to be enqueued).
  void LoadRunningTests();
  std::vector<Job> RunTests();
  void ProberLoop();  // probes benched bots (bot_health.h)
  v1::BotInfo BotInfoOf(const BotRow& bot, bool with_history);
  // The events whose field each bot is in now (not withdrawn), by bot id.
  std::map<int64_t, std::vector<std::string>> EventsByBot();
  // Leaderboard under the margin model (queries.cc).
  absl::StatusOr<v1::LeaderboardResponse> MarginLeaderboard(const std::string& variant,
                                                            const std::string& event,
                                                            const std::string& pool);
  // The per-bot gauges from a rating row.
  void SetBotMetrics(const std::string& bot, const RatingRow& rating);
  // The margin gauges of one bot's rating in one pool (tarock_arena_margin_*).
  void SetMarginMetrics(const std::string& bot, const MarginRatingRow& rating);

  Store* store_;
  RefereeClient* client_;
  DialInSeats* dial_in_ = nullptr;  // set before Start()
  std::function<bool(int64_t, int64_t)> hosted_versions_;  // set before Start()
  SeatAccounts seat_accounts_;                            // set before Start()
  absl::Duration seat_account_wait_ = absl::Seconds(10);
  RelayGate* relay_gate_ = nullptr;  // set before Start()
  BotProber* prober_ = nullptr;      // set before Start()
  std::string relay_endpoint_;
  bool direct_dial_in_ = false;  // set before Start()
  std::map<std::string, std::string> referee_bot_addresses_;  // set before Start()
  absl::Duration dial_in_join_wait_ = absl::ZeroDuration();  // set before Start()
  absl::Duration dial_in_wait_ = absl::Seconds(60);
  // Match id -> "ID: BOT" (a sealed deal's table: "a table of a sealed deal: BOT"),
  // the dial-in bot its start waits for.
  std::map<std::string, std::string> waiting_ ABSL_GUARDED_BY(mu_);
  // Tournament matches waiting for a benched bot: match id -> (tournament, note).
  struct BenchWait {
    int64_t tournament = 0;
    std::string note;
    std::string group;  // the match id; "sealed BOT" for a table of a sealed deal (one note for all)
  };
  std::map<std::string, BenchWait> bench_waits_ ABSL_GUARDED_BY(mu_);
  // When a tournament began waiting for a benched bot: (tournament, bot) -> time.
  std::map<std::pair<int64_t, int64_t>, absl::Time> bench_wait_started_ ABSL_GUARDED_BY(mu_);
  SchedulerOptions options_;
  RatingModel model_;
  MarginRatingModel margin_;
  // Each ladder's rating model, by ladder id (read from the store when missing).
  absl::Mutex models_mu_;
  std::map<int64_t, RatingModelKind> ladder_models_ ABSL_GUARDED_BY(models_mu_);
  BotHealth health_;  // after options_: made from options_.health
  LiveHub live_;
  std::unique_ptr<Metrics> metrics_;

  absl::Mutex mu_;
  std::deque<Job> queue_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, InFlight> in_flight_ ABSL_GUARDED_BY(mu_);  // by match id
  std::map<int64_t, int> busy_by_bot_ ABSL_GUARDED_BY(mu_);  // bot id -> matches queued or running
  std::map<int64_t, int> queued_by_ladder_ ABSL_GUARDED_BY(mu_);  // queued or in flight
  // Running, by key: the variant for the open event, RatingPool(variant,
  // event id) for the others.
  std::map<std::string, Ladder> ladders_ ABSL_GUARDED_BY(mu_);
  absl::Time events_ticked_ = absl::InfinitePast();  // the dispatcher's
  // One EventTick at a time (the dispatcher's and CreateEvent's; CloseEvent
  // takes it too, so no tick stores an event open over its close): two at a
  // deadline would each start a final. Never taken with mu_ held.
  absl::Mutex event_tick_mu_;
  absl::Mutex signup_mu_;
  // Sign-ups per event in the current hour: event id -> (hour, count).
  std::map<int64_t, std::pair<int64_t, int>> signups_ ABSL_GUARDED_BY(signup_mu_);
  std::map<int64_t, std::string> event_slugs_ ABSL_GUARDED_BY(signup_mu_);  // never change
  std::vector<std::string> referees_ ABSL_GUARDED_BY(mu_);  // the pool; SetReferees
  std::map<std::string, absl::Time> resting_until_ ABSL_GUARDED_BY(mu_);  // by referee
  size_t next_referee_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<bool> cancel_{false};
  std::vector<std::thread> threads_;  // workers and the dispatcher

  // Finished matches on their way to the store: the workers queue them and go
  // on to their next match; one writer commits them in completion order,
  // several per transaction when they queue up.
  static constexpr size_t kMaxQueuedCommits = 64;  // workers wait beyond this
  absl::Mutex commit_mu_;  // never held with mu_
  std::deque<Finished> commits_ ABSL_GUARDED_BY(commit_mu_);
  bool commits_closed_ ABSL_GUARDED_BY(commit_mu_) = false;  // the writer drains and ends
  // Matches the workers are running: when none is, no result is coming soon
  // and the writer commits what it has without waiting out commit_delay.
  int jobs_running_ ABSL_GUARDED_BY(commit_mu_) = 0;
  std::thread writer_;
  // The ends of finished tables whose deal other tables still play, by
  // seed: everything public shows them running until the deal is public
  // (PublishEnd, commits.cc).
  struct SealedEnd {
    std::string match_id;
    std::string variant;
    bool done = false;     // else failed
    bool counted = true;   // in tarock_arena_matches_total
    int hands = 0;
    double duration_s = 0;
  };
  absl::Mutex sealed_ends_mu_;  // never held with mu_
  std::map<uint64_t, std::vector<SealedEnd>> sealed_ends_ ABSL_GUARDED_BY(sealed_ends_mu_);
  // Entries of sealed_ends_; raised under mu_ as the table leaves in_flight_
  // (PublishEnd), before its entry is added, so the running gauge never
  // counts it twice.
  std::atomic<int64_t> sealed_ends_count_{0};
  absl::Time sealed_flushed_ = absl::InfinitePast();  // the dispatcher's
  // Publishes one end (PublishEnd) now.
  void EmitEnd(const SealedEnd& end);
  bool refill_ ABSL_GUARDED_BY(mu_) = false;  // a ladder slot freed: the dispatcher refills
  // Withheld tables (a duplicate set's, a test block's, a duplicate
  // tournament's rotations) that a worker took and whose end is not public
  // yet, by match id: their seed, and whether their worker has ended them and
  // holds their slot. A worker whose table ended sealed keeps its slot (takes
  // no job, frees nothing the dispatcher counts) until FlushSealedEnds erases
  // the entry: a next start would tell that a sealed table ended
  // (docs/security.md, "Secret deals"). WorkerLoop.
  struct SealedSlot {
    uint64_t seed = 0;
    bool holding = false;
    bool leave = false;  // GrantLeaves: takes the next job though its deal is sealed
  };
  std::map<std::string, SealedSlot> sealed_slots_ ABSL_GUARDED_BY(mu_);
  int holding_ ABSL_GUARDED_BY(mu_) = 0;  // entries of sealed_slots_ holding
  int leaving_ ABSL_GUARDED_BY(mu_) = 0;  // entries of sealed_slots_ to leave
  // Slots of sealed tables that had ended before a restart, for the workers
  // to hold again (RestoreSealedTables): the table, its bots and its ladder.
  struct RestoredSlot {
    std::string id;
    std::vector<int64_t> bots;
    int64_t ladder_id = 0;
  };
  std::deque<RestoredSlot> restored_slots_ ABSL_GUARDED_BY(mu_);
  bool loaded_ ABSL_GUARDED_BY(mu_) = false;  // Load ran since the last Stop
  // The live headers of those tables and of the resumed_ ones (Load begins
  // them all at once, with one start time; a table of a sealed deal is never
  // begun again by an attempt: RunOnReferees).
  std::vector<LiveMatchInfo> restored_live_ ABSL_GUARDED_BY(mu_);
  // A withheld table's live header (no step or score is ever shown of it).
  static LiveMatchInfo WithheldInfo(const MatchRow& m, const v1::MatchSpec& spec);
  // Tables of a sealed deal that had started and have not ended (an attempt
  // made before a restart, or stopped with the arena): running to the public
  // until they end, whether or not a referee has them now, like the tables
  // of their deal that had ended (second red team of 2026-11-29, the restart;
  // docs/security.md, "Secret deals").
  std::set<std::string> resumed_ ABSL_GUARDED_BY(mu_);
  // Referee failures of sealed deals' tables, by match and referee: counted
  // in tarock_arena_referee_failures_total when the end is public (EmitEnd).
  std::map<std::string, std::map<std::string, int>> held_failures_ ABSL_GUARDED_BY(mu_);
  // The queue as the public counts it: without resumed_ tables (running).
  int PublicQueueDepth() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Several arenas: since when every slot holds and nothing is queued
  // (ClaimForFreeSlots; InfiniteFuture: not so).
  absl::Time all_held_since_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  // Play matches running, one thread each, by match id; a finished one joins
  // at the next StartPlayMatch or at Stop().
  std::map<std::string, std::thread> play_threads_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> play_ended_ ABSL_GUARDED_BY(mu_);
  // Tests: the running ones and the blocks made of each, touched only by the
  // dispatcher (and by Start before it runs); started and stop-requested ids
  // on their way to it.
  std::map<int64_t, TestJob> tests_;
  std::map<int64_t, int64_t> test_blocks_made_;
  std::vector<int64_t> tests_started_ ABSL_GUARDED_BY(mu_);
  std::set<int64_t> tests_to_stop_ ABSL_GUARDED_BY(mu_);
  // Several arenas: what SharedRound read from the database for matchmaking
  // (matches pending or running per ladder and per bot, of every arena).
  std::map<int64_t, int> shared_queued_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, int> shared_busy_ ABSL_GUARDED_BY(mu_);
  absl::Time leases_renewed_ = absl::InfinitePast();  // dispatcher thread only
};

// Names are 1-64 of [A-Za-z0-9._-].
bool ValidBotName(const std::string& name);

// What the store keeps of a finished match: its seats (bots by seat from
// `bot_ids`, totals, faults, forfeits, ranks from the totals with forfeits
// last), the record and the record split into one JSON per hand.
// The hosted version a Hello names ("hosted:vID ..."), 0 for none (hosted.cc).
int64_t HostedVersionOfHello(const std::string& hello_version);
// Whether a fault of the match record (its "kind" and "detail") is one of a
// player that was away: a timeout, or a disconnect that the referee (a joined
// seat with no stream: "not connected: ...") or the arena's relay ("the
// dial-in bot ...") recorded. A host's Absent names its bot's cause instead.
bool IsAwayFault(const std::string& kind, const std::string& detail);
MatchResultRow MatchResultOf(const v1::MatchFinished& finished, const std::vector<int64_t>& bot_ids,
                             const std::string& referee, int attempts);

// The rating step of one finished match: `current` holds the ratings of the
// seats' bots before it (nullopt: new in this variant). One player per distinct
// bot, on the mean of its seats' totals, forfeits ranked last; returns the new
// rating of each distinct bot (none when only one bot played). The scheduler
// commits with it and RebuildRatings replays with it, so both agree bit for bit.
std::vector<RatingRow> RateMatch(const RatingModel& model, const std::string& variant,
                                 const std::vector<SeatRow>& seats,
                                 const std::vector<std::optional<RatingRow>>& current);

// The unit of a margin rating in `variant`: "points a deal", or "chips a
// deal" for the chip games (tapp-tarock, tapp-tarock-classic, westfest).
std::string MarginUnit(const std::string& variant);

// A ladder's format and rating model from its config: "" (a ladder stored
// before issue 33) is match and place; unknown names INVALID_ARGUMENT.
absl::StatusOr<std::pair<LadderFormat, RatingModelKind>> LadderModes(const v1::LadderConfig& config);

// The margin rating step of one duplicate set (Store::SetRateFn): its done
// tables' hand scores (settlement apart) through MarginRatingModel::Update;
// returns the new rating of each bot that had a comparable board (sets + 1,
// faults of its seats added) and the pool's noise. The scheduler books with
// it and VerifyRatings replays with it, so both agree bit for bit.
absl::StatusOr<Store::SetRating> RateSet(const MarginRatingModel& model,
                                         const std::vector<SetTableRow>& tables,
                                         const std::map<int64_t, MarginRatingRow>& current,
                                         const MarginNoiseRow& noise);

// Recomputes every rating from the stored results alone and compares with the
// stored ratings: place ratings from the done matches in completion order
// (the tables of margin ladders left out; a table whose deal was not public at
// its commit where the live commit rated it: MatchRow::rating_wait), margin ratings and each pool's
// noise from the booked duplicate sets in booking order, from the initial
// ratings. OK when every bot and pool matches exactly, else an error naming
// the first difference.
absl::Status VerifyRatings(Store& store, const RatingModel& model,
                           const MarginRatingModel& margin = MarginRatingModel());

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_SCHEDULER_H_
