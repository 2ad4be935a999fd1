// The scheduler's core (scheduler.h): construction, start and stop, the
// admin token, and running matches on the referees (dispatcher, workers,
// retries). The other concerns live beside it, each in its own file.

#include "arena/scheduler/scheduler.h"

#include <nlohmann/json.hpp>

#include <google/protobuf/util/json_util.h>
#include <pthread.h>
#include <sys/resource.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "arena/scheduler/deal_seal.h"
#include "arena/scheduler/scheduler_internal.h"
#include "arena/store/rating_pool.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "referee/logging/log.h"
#include "tarock/transport/referee_proof.h"

namespace tarock::arena {

namespace {

using scheduler_internal::SeatNames;
using scheduler_internal::FromJson;
using scheduler_internal::ToJson;
using scheduler_internal::IsRefereeFailure;

// Every slot held by a sealed table and no twin of theirs queued: their deals
// turn public by themselves (the last table's commit, a second at most for
// the dispatcher to see deleted spares or another arena's commit). Only a
// state that lasts longer than this takes a match for liveness (WorkerLoop).
constexpr absl::Duration kSealedSlotPatience = absl::Seconds(3);

}  // namespace

Scheduler::Scheduler(Store* store, RefereeClient* client, SchedulerOptions options,
                     prometheus::Registry* registry)
    : store_(store),
      client_(client),
      options_(std::move(options)),
      model_(options_.rating),
      margin_(options_.margin),
      health_(options_.health) {
  static prometheus::Registry unused;
  metrics_ = std::make_unique<Metrics>(registry ? registry : &unused);
  referees_ = options_.referees;
  metrics_->referees_available.Set(referees_.size());
}

void Scheduler::SetReferees(std::vector<std::string> referees) {
  absl::MutexLock lock(&mu_);
  if (referees == referees_) return;
  std::vector<std::string> joined, left;
  for (const std::string& r : referees)
    if (std::find(referees_.begin(), referees_.end(), r) == referees_.end()) joined.push_back(r);
  for (const std::string& r : referees_)
    if (std::find(referees.begin(), referees.end(), r) == referees.end()) {
      left.push_back(r);
      resting_until_.erase(r);  // a referee that comes back starts afresh
    }
  logging::Info("scheduler", "referee pool changed",
                {{"referees", absl::StrJoin(referees, ",")}, {"joined", absl::StrJoin(joined, ",")},
                 {"left", absl::StrJoin(left, ",")}});
  referees_ = std::move(referees);
  // Round robin goes on from about where it was; the index must stay in range.
  next_referee_ = referees_.empty() ? 0 : next_referee_ % referees_.size();
  int available = 0;
  const absl::Time now = absl::Now();
  for (const std::string& r : referees_) {
    auto it = resting_until_.find(r);
    if (it == resting_until_.end() || it->second <= now) ++available;
  }
  metrics_->referees_available.Set(available);
}

Scheduler::~Scheduler() { Stop(); }

void Scheduler::Load() {
  {
    absl::MutexLock lock(&mu_);
    if (loaded_) return;
    loaded_ = true;
    // Several arenas: unfinished matches are claimed from the database (those
    // of a dead arena once their leases expire), not queued here, and play
    // matches may be another arena's live sessions.
    for (const MatchRow& m : Shared() ? std::vector<MatchRow>{} : store_->UnfinishedMatches()) {
      if (m.kind == "play") {
        // The person's seat lived in this process's memory: it cannot resume.
        store_->MarkFailed(m.id, "the arena restarted during the play session").IgnoreError();
        continue;
      }
      if (m.test_id) {
        absl::StatusOr<TestRow> test = store_->GetTest(m.test_id);
        if (!test.ok() || test->status != "running") {
          store_->DeletePendingMatches({m.id}).IgnoreError();  // the test ended without it
          continue;
        }
      }
      if (m.status == "running") store_->MarkPending(m.id).IgnoreError();
      Job job{m, FromJson<v1::MatchSpec>(m.spec)};
      job.match.status = "pending";
      // Started before the restart, its deal sealed: running to the public
      // until it ends, as its twins that had ended are.
      if (m.attempts > 0 && job.spec.withhold_hand_records()) {
        resumed_.insert(m.id);
        restored_live_.push_back(WithheldInfo(m, job.spec));
      }
      if (m.ladder_id) ++queued_by_ladder_[m.ladder_id];
      Enqueue(std::move(job));
    }
    for (const LadderRow& l : store_->ListLadders()) {
      if (!l.running) continue;
      Ladder ladder = LadderOf(l);
      ladder.created = store_->CountLadderMatches(l.id, "done") +
                       store_->CountLadderMatches(l.id, "failed") +
                       store_->CountLadderMatches(l.id, "pending") +
                       store_->CountLadderMatches(l.id, "running");
      ladders_[RatingPool(l.variant, ladder.event_id)] = ladder;
    }
    if (!Shared()) RestoreSealedTables();
    metrics_->queue_depth.Set(PublicQueueDepth());
    // Every table of a sealed deal that shows running is on the live feed,
    // begun at once with one start time (a referee taking one again begins
    // nothing: which had ended would show by who was begun when).
    const int64_t now_ms = absl::ToUnixMillis(absl::Now());
    for (LiveMatchInfo& info : restored_live_) {
      info.started_ms = now_ms;
      live_.Begin(info);
    }
    restored_live_.clear();
  }
}

LiveMatchInfo Scheduler::WithheldInfo(const MatchRow& m, const v1::MatchSpec& spec) {
  LiveMatchInfo info;
  info.id = m.id;
  info.variant = m.variant;
  info.kind = m.kind;
  info.ladder_id = m.ladder_id;
  info.tournament_id = m.tournament_id;
  for (const v1::SeatSpec& seat : spec.seats()) info.bots.push_back(seat.name());
  info.num_hands = spec.num_hands();
  info.withheld = true;
  return info;
}

absl::Status Scheduler::Start() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = false;
    cancel_.store(false);
  }
  Load();
  // Sets finished but not booked (stopped between a table's commit and its
  // booking): booked now, in the order of their tables.
  for (const auto& [ladder_id, seed] : store_->UnbookedFinishedSets()) {
    MatchRow m;
    for (const SetTableRow& t : store_->SetTables(ladder_id, seed)) m = t.match;
    BookSetOf(m);
  }
  tests_.clear();
  test_blocks_made_.clear();
  if (!Shared()) LoadRunningTests();
  for (const BotRow& bot : store_->ListBots(/*include_retired=*/false)) {
    for (const RatingRow& r : store_->RatingsOfBot(bot.id)) SetBotMetrics(bot.name, r);
    for (const MarginRatingRow& r : store_->MarginRatingsOfBot(bot.id)) SetMarginMetrics(bot.name, r);
  }
  {
    absl::MutexLock lock(&commit_mu_);
    commits_closed_ = false;
  }
  // Named, so profiles and top -H tell them apart.
  writer_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "arena-writer");
    // Commits can wait a few milliseconds; the referees and bots on the same
    // machine answer decisions and should not be preempted by them.
    setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 5);
    WriterLoop();
  });
  for (int i = 0; i < std::max(1, options_.max_parallel); ++i)
    threads_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "arena-worker");
      WorkerLoop();
    });
  threads_.emplace_back([this] {
    pthread_setname_np(pthread_self(), "arena-dispatch");
    DispatcherLoop();
  });
  threads_.emplace_back([this] {
    pthread_setname_np(pthread_self(), "arena-prober");
    ProberLoop();
  });
  return absl::OkStatus();
}

void Scheduler::RestoreSealedTables() {
  restored_slots_.clear();
  const int workers = std::max(1, options_.max_parallel);
  int held = 0;
  MatchFilter filter;
  filter.sealed_finished = true;  // ended, and a twin of the deal pending or running
  std::vector<MatchRow> tables = store_->ListMatchesPage(filter, 0, 100000, nullptr);
  // In the order they were made (the page lists the newest first).
  std::reverse(tables.begin(), tables.end());
  for (const MatchRow& m : tables) {
    const v1::MatchSpec spec = FromJson<v1::MatchSpec>(m.spec);
    {
      absl::MutexLock lock(&sealed_ends_mu_);
      sealed_ends_[m.seed].push_back(
          SealedEnd{m.id, m.variant, m.status == "done", /*counted=*/true, m.hands, m.duration_s});
      ++sealed_ends_count_;
    }
    // On the live feed as running, like its twins (Load); its end once the
    // deal is public (FlushSealedEnds).
    restored_live_.push_back(WithheldInfo(m, spec));
    // Beyond the workers, a slot had been given to a twin (GrantLeaves).
    if (held >= workers) continue;
    ++held;
    sealed_slots_[m.id] = SealedSlot{m.seed, false, false};
    restored_slots_.push_back(RestoredSlot{m.id, m.bot_ids, m.ladder_id});
    for (int64_t b : m.bot_ids) ++busy_by_bot_[b];  // as while its worker held it
    if (m.ladder_id) ++queued_by_ladder_[m.ladder_id];
  }
  if (!tables.empty())
    logging::Info("scheduler", "sealed tables that had ended before the restart are held again",
                  {{"tables", static_cast<int64_t>(tables.size())}, {"slots", held}});
  SetRunningGauge();
}

// Benched bots are probed when their backoff has passed (bot_health.h): a
// dial-in bot is back when it is connected, a listening one when it answers
// a health check. One probe at a time, each bounded, so a hanging bot delays
// only the others' probes.
void Scheduler::ProberLoop() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Milliseconds(500));
    if (stopping_) break;
    mu_.Unlock();
    for (int64_t id : health_.DueForProbe(absl::Now())) {
      if (cancel_.load()) break;
      absl::StatusOr<BotRow> bot = store_->BotById(id);
      if (!bot.ok()) continue;
      absl::Status result;
      if (ThroughGateway(bot->endpoint)) {
        result = dial_in_ && dial_in_->Online(id)
                     ? absl::OkStatus()
                     : absl::UnavailableError("the dial-in bot is not connected to the arena");
      } else if (prober_ != nullptr) {
        result = prober_->Probe(bot->endpoint, absl::Now() + absl::Seconds(2));
      }  // no prober: back on probation; the next match tells
      health_.OnProbe(id, result, absl::Now());
      logging::Info("scheduler", result.ok() ? "benched bot answers again" : "benched bot still down",
                    {{"bot", bot->name}, {"error", result.ok() ? "" : std::string(result.message())}});
    }
    mu_.Lock();
  }
}

void Scheduler::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_ && threads_.empty() && !writer_.joinable()) return;
    stopping_ = true;
  }
  // Every table of a sealed deal ends for its spectators at once, those that
  // had ended and those cut short alike ("not finished" one by one as their
  // workers stop would tell them apart; docs/security.md, "Secret deals").
  live_.EndWithheld(R"({"status":"not finished"})");
  cancel_.store(true);
  client_->CancelAll();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  std::map<std::string, std::thread> play;
  {
    absl::MutexLock lock(&mu_);
    play.swap(play_threads_);
    play_ended_.clear();
  }
  for (auto& [id, t] : play) t.join();
  // The workers are done: the writer commits what they finished, then ends.
  {
    absl::MutexLock lock(&commit_mu_);
    commits_closed_ = true;
  }
  if (writer_.joinable()) writer_.join();
  // What this arena claimed and did not finish goes back to the others at
  // once, instead of when its leases expire.
  if (Shared()) {
    if (absl::Status s = store_->ReleaseLeases(options_.lease_owner); !s.ok())
      logging::Warning("scheduler", "cannot release leases", {{"error", s.ToString()}});
    absl::MutexLock lock(&mu_);
    queue_.clear();
    busy_by_bot_.clear();
    queued_by_ladder_.clear();
  }
}

absl::Status Scheduler::CheckAdmin(const std::string& token) const {
  if (options_.admin_token.empty()) {
    if (options_.refuse_admin_without_token)
      return absl::PermissionDeniedError(
          "this arena listens beyond loopback and has no admin token: administrative calls "
          "are refused (start it with --admin_token or $TAROCK_ADMIN_TOKEN)");
    return absl::OkStatus();
  }
  if (!IsAdminToken(token))
    return absl::PermissionDeniedError("this operation needs the arena's admin token");
  return absl::OkStatus();
}

bool Scheduler::IsAdminToken(const std::string& token) const {
  return !options_.admin_token.empty() &&
         transport::ConstantTimeEquals(token, options_.admin_token);
}

absl::StatusOr<v1::ListAuditResponse> Scheduler::ListAudit(const v1::ListAuditRequest& r) {
  if (absl::Status s = CheckAdmin(r.admin_token()); !s.ok()) return s;
  if (r.limit() < 0 || r.limit() > 1000)
    return absl::InvalidArgumentError("limit must be 0..1000 (0: 100)");
  v1::ListAuditResponse out;
  for (const AuditRow& row :
       store_->ListAudit(r.target(), r.before_id(), r.limit() ? r.limit() : 100)) {
    v1::AuditEntry* e = out.add_entries();
    e->set_id(row.id);
    e->set_at(row.at);
    e->set_actor(row.actor);
    e->set_client(row.client);
    e->set_action(row.action);
    e->set_target(row.target);
    e->set_outcome(row.outcome);
    e->set_detail(row.detail);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Running matches.

std::string Scheduler::PickReferee() {
  const absl::Time now = absl::Now();
  const size_t n = referees_.size();
  int available = 0;
  std::string pick;
  for (size_t i = 0; i < n; ++i) {
    const std::string& r = referees_[(next_referee_ + i) % n];
    auto it = resting_until_.find(r);
    if (it != resting_until_.end() && it->second > now) continue;
    ++available;
    if (pick.empty()) {
      pick = r;
      next_referee_ = (next_referee_ + i + 1) % n;
    }
  }
  metrics_->referees_available.Set(available);
  return pick;
}

void Scheduler::DispatcherLoop() {
  // What one round does for a ladder, decided under mu_ and carried out
  // (matchmaking reads, the insert) without it: workers need mu_ to start
  // their next match, and the store can be busy with a commit.
  struct Refill {
    Ladder ladder;  // a copy; `created` advances as matches are made
    int wanted = 0;
    bool ended = false;  // max_matches made and all done: mark it stopped
    std::vector<Job> made;
  };
  for (;;) {
    std::vector<Refill> refills;
    std::map<int64_t, int> busy;
    // Several arenas: only the holder of the dispatcher lease makes matches.
    const bool dispatcher = !Shared() || SharedRound();
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      refill_ = false;  // a worker that frees a slot from here on wakes the next round
      // A few matches beyond the slots wait made, so a worker that finishes
      // finds its next match ready instead of waiting for matchmaking.
      // Events share the slots by weight (EventConfig.weight): a ladder keeps
      // its share of the target queued, so the queue, and the referees, serve
      // the events in proportion; the open event's ladders weigh 1 each.
      const int target = LadderQueueTarget();
      int weights = 0;
      for (const auto& [key, ladder] : ladders_) weights += ladder.weight;
      for (auto& [key, ladder] : ladders_) {
        if (!dispatcher) break;
        Refill r;
        r.ladder = ladder;
        const int queued =
            Shared() ? shared_queued_[ladder.id] : queued_by_ladder_[ladder.id];
        const int max = ladder.config.max_matches();
        const int share =
            ladders_.size() <= 1 ? target
                                 : std::max(1, target * ladder.weight * static_cast<int>(ladders_.size()) /
                                                   std::max(1, weights));
        r.wanted = share - queued;
        if (max > 0) r.wanted = static_cast<int>(std::min<int64_t>(r.wanted, max - ladder.created));
        // Ended once its last result is committed, not just played.
        const int64_t ladder_id = ladder.id;  // clang 14 cannot capture a structured binding
        r.ended = max > 0 && ladder.created >= max && queued == 0 &&
                  (Shared() ||  // (queued counts the running matches of every arena)
                   std::none_of(in_flight_.begin(), in_flight_.end(), [&](const auto& f) {
                     return f.second.ladder_id == ladder_id;
                   }));
        if (r.wanted > 0 || r.ended) refills.push_back(std::move(r));
      }
      busy = Shared() ? shared_busy_ : busy_by_bot_;
    }
    // Events move along their schedule (events.cc), about once a second.
    if (dispatcher && absl::Now() - events_ticked_ >= absl::Seconds(1)) {
      events_ticked_ = absl::Now();
      EventTick(events_ticked_);
      OpenLadderTick();
    }
    std::vector<Job> test_jobs = Shared() ? std::vector<Job>{} : RunTests();
    for (Refill& r : refills) {
      if (r.ended) {
        store_->SetLadderRunning(r.ladder.id, false).IgnoreError();
        continue;
      }
      std::vector<LadderCandidate> candidates =
          LadderCandidates(r.ladder.config.variant(), r.ladder.event_id, r.ladder.model);
      while (static_cast<int>(r.made.size()) < r.wanted) {
        for (LadderCandidate& c : candidates) c.busy = busy.count(c.bot.id) ? busy[c.bot.id] : 0;
        // A match, or every table of a duplicate set (all stored at once).
        absl::StatusOr<std::vector<Job>> jobs = MakeLadderJobs(r.ladder, candidates);
        if (!jobs.ok()) break;  // not enough bots yet: try again later
        for (Job& job : *jobs) {
          // Busy at once, so the next one of this round is matched around it.
          for (int64_t b : job.match.bot_ids) ++busy[b];
          r.made.push_back(std::move(job));
        }
      }
      if (r.made.empty()) continue;
      std::vector<MatchRow> rows;
      for (const Job& j : r.made) rows.push_back(j.match);
      if (!store_->InsertMatches(rows).ok()) r.made.clear();  // nothing written: next round
    }
    // Several arenas: this arena's free slots take the oldest claimable
    // matches, whoever made them (those just made included).
    if (Shared()) ClaimForFreeSlots();
    // Sealed ends whose deal turned public without a commit or a failure
    // here (a stopped ladder's spares deleted, another arena's commit).
    if (sealed_ends_count_.load() > 0 && absl::Now() - sealed_flushed_ > absl::Seconds(1)) {
      sealed_flushed_ = absl::Now();
      FlushSealedEnds();
    }
    absl::MutexLock lock(&mu_);
    for (Job& j : test_jobs) Enqueue(std::move(j));
    for (Refill& r : refills) {
      auto it = ladders_.find(RatingPool(r.ladder.config.variant(), r.ladder.event_id));
      const bool current = it != ladders_.end() && it->second.id == r.ladder.id;
      if (r.ended) {
        if (current) ladders_.erase(it);
        continue;
      }
      if (r.made.empty()) continue;
      if (!current) {
        // Stopped while these were made: they go, as StopLadder's spares did.
        std::vector<std::string> ids;
        for (const Job& j : r.made) ids.push_back(j.match.id);
        store_->DeletePendingMatches(ids).IgnoreError();
        continue;
      }
      // Only the dispatcher makes ladder matches, so nothing else moved `created`.
      it->second.created = r.ladder.created;
      if (Shared()) continue;  // claimed from the database, by any arena
      for (Job& j : r.made) {
        ++queued_by_ladder_[r.ladder.id];
        Enqueue(std::move(j));
      }
    }
    metrics_->queue_depth.Set(PublicQueueDepth());
    if (!refill_)
      mu_.AwaitWithTimeout(absl::Condition(+[](Scheduler* s) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                             return s->stopping_ || s->refill_;
                           }, this),
                           absl::Milliseconds(100));
  }
}

Scheduler::Ladder Scheduler::LadderOf(const LadderRow& l) {
  Ladder ladder;
  ladder.id = l.id;
  ladder.config = FromJson<v1::LadderConfig>(l.config);
  absl::StatusOr<std::pair<LadderFormat, RatingModelKind>> modes = LadderModes(ladder.config);
  if (modes.ok()) {
    ladder.format = modes->first;
    ladder.model = modes->second;
  }
  {
    absl::MutexLock models(&models_mu_);
    ladder_models_[l.id] = ladder.model;
  }
  if (!ladder.config.event().empty()) {
    absl::StatusOr<EventRow> event = store_->GetEvent(ladder.config.event());
    if (event.ok()) {
      ladder.event_id = event->id;
      ladder.weight = std::max(1, FromJson<v1::EventConfig>(event->config).weight());
    }
  }
  return ladder;
}

int Scheduler::LadderQueueTarget() const {
  return 2 * std::max(1, options_.max_parallel);
}

int Scheduler::LeaseSeconds() const {
  return std::max<int>(1, static_cast<int>(absl::ToInt64Seconds(options_.lease)));
}

bool Scheduler::SharedRound() {
  const absl::Time now = absl::Now();
  if (now - leases_renewed_ >= options_.lease / 3) {
    if (absl::Status s = store_->RenewLeases(options_.lease_owner, LeaseSeconds()); !s.ok())
      logging::Warning("scheduler", "cannot renew leases", {{"error", s.ToString()}});
    else
      leases_renewed_ = now;
  }
  absl::StatusOr<bool> dispatcher =
      store_->AcquireLease("dispatcher", options_.lease_owner, LeaseSeconds());
  if (!dispatcher.ok()) {
    logging::Warning("scheduler", "cannot take the dispatcher lease",
                     {{"error", dispatcher.status().ToString()}});
    return false;
  }
  // The running ladders as the database has them (started or stopped by any
  // arena), with what every arena has made, queued and running of each.
  std::map<std::string, Ladder> ladders;
  std::map<int64_t, int> queued;
  std::map<int64_t, int> busy;
  for (const LadderRow& l : store_->ListLadders()) {
    if (!l.running) continue;
    Ladder ladder = LadderOf(l);
    const int64_t open =
        store_->CountLadderMatches(l.id, "pending") + store_->CountLadderMatches(l.id, "running");
    const int64_t done = store_->CountLadderMatches(l.id, "done");
    const int64_t failed = store_->CountLadderMatches(l.id, "failed");
    ladder.created = done + failed + open;
    // A finished table whose deal is sealed still counts as running (its
    // slot is held, WorkerLoop): a set made as it ends would tell that it
    // ended (docs/security.md, "Secret deals").
    const int64_t sealed = std::max<int64_t>(0, done - store_->CountPublicFinished("done", l.id)) +
                           std::max<int64_t>(0, failed - store_->CountPublicFinished("failed", l.id));
    queued[l.id] = static_cast<int>(open + sealed);
    ladders[RatingPool(l.variant, ladder.event_id)] = ladder;
  }
  // Matchmaking's busy bots: only ladders need them (reading every unfinished
  // match of a large tournament each round would not be free).
  if (*dispatcher && !ladders.empty())
    for (const MatchRow& m : store_->UnfinishedMatches())
      for (int64_t b : m.bot_ids) ++busy[b];
  absl::MutexLock lock(&mu_);
  ladders_ = std::move(ladders);
  shared_queued_ = std::move(queued);
  shared_busy_ = std::move(busy);
  return *dispatcher;
}

void Scheduler::ClaimForFreeSlots() {
  int free = 0;
  {
    absl::MutexLock lock(&mu_);
    const int workers = std::max(1, options_.max_parallel);
    free = workers - static_cast<int>(in_flight_.size()) - static_cast<int>(queue_.size());
    // A slot held by a sealed table (WorkerLoop) is not free; its match may
    // have left in_flight_ with its commit.
    for (const auto& [id, slot] : sealed_slots_)
      if (slot.holding && !in_flight_.count(id)) --free;
    // Every slot held and nothing queued for longer than their deals take to
    // turn public by themselves: one is taken (the twins may wait in the
    // database for a free slot of any arena).
    if (holding_ >= workers && queue_.empty()) {
      if (all_held_since_ == absl::InfiniteFuture()) all_held_since_ = absl::Now();
      if (absl::Now() - all_held_since_ >= kSealedSlotPatience) free = std::max(free, 1);
    } else {
      all_held_since_ = absl::InfiniteFuture();
    }
  }
  if (free <= 0) return;
  absl::StatusOr<std::vector<MatchRow>> claimed =
      store_->ClaimMatches(options_.lease_owner, LeaseSeconds(), free);
  if (!claimed.ok()) {
    logging::Warning("scheduler", "cannot claim matches", {{"error", claimed.status().ToString()}});
    return;
  }
  absl::MutexLock lock(&mu_);
  for (const MatchRow& m : *claimed) {
    Job job{m, FromJson<v1::MatchSpec>(m.spec)};
    if (m.ladder_id) ++queued_by_ladder_[m.ladder_id];
    Enqueue(std::move(job));
  }
  metrics_->queue_depth.Set(PublicQueueDepth());
}

void Scheduler::Enqueue(Job job) {
  for (int64_t b : job.match.bot_ids) ++busy_by_bot_[b];
  queue_.push_back(std::move(job));
}

Scheduler::Job Scheduler::TakeJob(std::optional<uint64_t> seed) {
  auto it = queue_.begin();
  if (seed)
    for (auto j = queue_.begin(); j != queue_.end(); ++j)
      if (j->spec.withhold_hand_records() && j->match.seed == *seed) {
        it = j;
        break;
      }
  Job job = std::move(*it);
  queue_.erase(it);
  in_flight_[job.match.id] = InFlight{"", job.match.attempts, job.match.ladder_id};
  if (job.spec.withhold_hand_records()) sealed_slots_[job.match.id] = SealedSlot{job.match.seed, false, false};
  metrics_->queue_depth.Set(PublicQueueDepth());
  SetRunningGauge();
  return job;
}

int Scheduler::PublicQueueDepth() const {
  // Only after a restart is any queued table running to the public; the
  // gauge is set on every take, so an ordinary queue is not walked.
  if (resumed_.empty()) return static_cast<int>(queue_.size());
  int n = 0;
  for (const Job& j : queue_)
    if (!resumed_.count(j.match.id)) ++n;
  return n;
}

void Scheduler::GrantLeaves() {
  std::map<uint64_t, int> twins;  // queued withheld tables by seed
  for (const Job& j : queue_)
    if (j.spec.withhold_hand_records()) ++twins[j.match.seed];
  for (auto& [id, slot] : sealed_slots_) {
    if (!slot.holding || slot.leave || twins[slot.seed] == 0) continue;
    --twins[slot.seed];
    slot.leave = true;
    ++leaving_;
  }
}

void Scheduler::WorkerLoop() {
  std::optional<Job> next;  // taken on leaving a sealed slot (HoldSealedSlot)
  {
    // A sealed table that had ended before a restart: its slot is held again
    // first, as its worker held it (RestoreSealedTables).
    absl::MutexLock lock(&mu_);
    if (!restored_slots_.empty() && !stopping_) {
      RestoredSlot restored = std::move(restored_slots_.front());
      restored_slots_.pop_front();
      HoldSealedSlot(restored.id, &next);
      ReleaseTable(restored.bots, restored.ladder_id);
    }
  }
  for (;;) {
    Job job;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !queue_.empty(); };
      if (!next) mu_.Await(absl::Condition(&ready));
      if (stopping_) {
        if (next) {  // taken on leaving a sealed slot, not started: queued again
          in_flight_.erase(next->match.id);
          sealed_slots_.erase(next->match.id);
          queue_.push_front(*std::move(next));
          SetRunningGauge();
        }
        return;
      }
      if (next) {
        job = std::move(*next);
        next.reset();
      } else {
        job = TakeJob();
      }
    }
    const int64_t ladder = job.match.ladder_id;
    const std::vector<int64_t> bots = job.match.bot_ids;
    const std::string id = job.match.id;
    const bool withheld = job.spec.withhold_hand_records();
    bool failed = false;
    const bool committing = RunJob(std::move(job), &failed);
    absl::MutexLock lock(&mu_);
    if (!committing) in_flight_.erase(id);  // else the writer does, once committed
    // Stopped unfinished with the arena, its deal sealed: still running to
    // the public (its twins that ended are) while the arena stops.
    if (!committing && !failed && withheld && stopping_) resumed_.insert(id);
    if (auto slot = sealed_slots_.find(id); slot != sealed_slots_.end()) {
      if (!committing && !failed)
        sealed_slots_.erase(slot);  // stopping, unfinished: nothing sealed
      else
        HoldSealedSlot(id, &next);
    }
    ReleaseTable(bots, ladder);
  }
}

// A table that ended (played or failed) while its deal is sealed keeps its
// slot until the deal is public (FlushSealedEnds erases its entry): a next
// match started now, a slot freed for the dispatcher's counts (running,
// queued, a new set made) would tell that it ended (docs/security.md,
// "Secret deals"). Unless every worker holds one and a match waits that
// nothing else could run (the twins themselves when --max_parallel is below
// the tables of a deal): then each holder with a twin of its deal queued
// takes one, all at once (GrantLeaves): the starts tell that every running
// table ended, the last just now, and no more (one at a time, each next
// start would tell when a twin ended).
void Scheduler::HoldSealedSlot(const std::string& id, std::optional<Job>* next) {
  auto slot = sealed_slots_.find(id);
  if (slot == sealed_slots_.end()) return;
  const uint64_t seed = slot->second.seed;
  slot->second.holding = true;
  ++holding_;
  const int workers = std::max(1, options_.max_parallel);
  auto released = [this, &id, workers]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = sealed_slots_.find(id);
    return stopping_ || it == sealed_slots_.end() || it->second.leave ||
           (holding_ >= workers && leaving_ == 0 && !queue_.empty());
  };
  auto changed = [this, &id, workers]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = sealed_slots_.find(id);
    return stopping_ || it == sealed_slots_.end() || it->second.leave || leaving_ > 0 ||
           holding_ < workers || queue_.empty();
  };
  for (;;) {
    mu_.Await(absl::Condition(&released));
    auto it = sealed_slots_.find(id);
    if (stopping_ || it == sealed_slots_.end()) break;
    if (!it->second.leave) GrantLeaves();  // every slot holds: who leaves
    if (!it->second.leave && leaving_ == 0) {
      // No twin of a held deal is queued: the deals turn public by
      // themselves (one's last table may be on its way to the writer),
      // unless their twins are stuck elsewhere. Only then (patience
      // out, nothing changed) does this slot run what is queued.
      if (mu_.AwaitWithTimeout(absl::Condition(&changed), kSealedSlotPatience)) continue;
      it = sealed_slots_.find(id);
      it->second.leave = true;
      ++leaving_;
    }
    if (!it->second.leave) continue;  // others, whose twins wait
    if (!queue_.empty()) break;
    it->second.leave = false;  // what it was to run went meanwhile
    --leaving_;
  }
  --holding_;
  if (auto it = sealed_slots_.find(id); it != sealed_slots_.end()) {
    if (it->second.leave) --leaving_;
    sealed_slots_.erase(it);
    if (!stopping_) {
      *next = TakeJob(seed);
      logging::Warning("scheduler",
                       "every worker holds a sealed table's slot: this one takes the next match "
                       "(--max_parallel below the tables that play a deal at once)",
                       {{"ended", id}, {"next", (*next)->match.id},
                        {"max_parallel", options_.max_parallel}});
    }
  }
}

void Scheduler::ReleaseTable(const std::vector<int64_t>& bots, int64_t ladder_id) {
  for (int64_t b : bots) --busy_by_bot_[b];
  if (Shared()) refill_ = true;  // a slot is free: the dispatcher claims the next match
  if (ladder_id) {
    // The dispatcher tops the ladder up when its spare matches are gone (and
    // every 100 ms anyway).
    if (--queued_by_ladder_[ladder_id] <= LadderQueueTarget() - std::max(1, options_.max_parallel) / 2)
      refill_ = true;
  }
  SetRunningGauge();
}

bool Scheduler::RunJob(Job job, bool* failed_out) {
  {
    absl::MutexLock lock(&commit_mu_);
    ++jobs_running_;
  }
  const std::string id = job.match.id;
  bool failed = false;
  const bool committing = RunOnReferees(std::move(job), &failed);
  if (failed_out) *failed_out = failed;
  if (!committing) {
    // Its spectators are told when it stops unfinished (a committed or
    // failed match ends for them once its end is public: PublishEnd).
    if (!failed) live_.End(id, R"({"status":"not finished"})");
    absl::MutexLock lock(&commit_mu_);
    --jobs_running_;  // (EnqueueCommit counts the others down)
  }
  return committing;
}

void Scheduler::ForwardLiveEvent(const std::string& match_id, const v1::MatchEvent& event) {
  if (event.has_public_action()) {
    const v1::PublicAction& a = event.public_action();
    nlohmann::json j;
    j["hand"] = a.hand_index();
    j["index"] = a.action_index();
    j["seat"] = a.seat();
    if (a.action_index() >= 0) j["action"] = a.action();
    j["state"] = nlohmann::json::parse(a.state_json(), nullptr, false);
    live_.Publish(match_id, a.action_index() < 0 ? "hand" : "action", j.dump());
  } else if (event.has_hand_finished()) {
    const v1::HandFinished& h = event.hand_finished();
    nlohmann::json j;
    j["hand"] = h.hand_index();
    j["scores"] = std::vector<int>(h.scores().begin(), h.scores().end());
    j["redeal"] = h.redeal();
    j["counts_as_hand"] = h.counts_as_hand();
    live_.Publish(match_id, "hand_end", j.dump());
  }
}

absl::Status Scheduler::Redeal(Job& job) {
  absl::StatusOr<SealedSeed> sealed = NewSealedSeed();
  if (!sealed.ok()) return sealed.status();
  // The stored spec, not job.spec: that one carries this process's secrets
  // (referee proofs, relay capabilities).
  v1::MatchSpec stored = FromJson<v1::MatchSpec>(job.match.spec);
  stored.set_seed(sealed->seed);
  const std::string spec = ToJson(stored);
  if (absl::Status s = store_->Redeal(job.match.id, sealed->seed, sealed->salt, sealed->commitment, spec);
      !s.ok())
    return s;
  job.match.seed = sealed->seed;
  job.match.seed_salt = sealed->salt;
  job.match.seed_commitment = sealed->commitment;
  job.match.spec = spec;
  job.spec.set_seed(sealed->seed);
  logging::Info("scheduler", "match dealt afresh for its next attempt",
                {{"match", job.match.id}, {"ladder", job.match.ladder_id},
                 {"tournament", job.match.tournament_id}});
  return absl::OkStatus();
}

bool Scheduler::RunOnReferees(Job job, bool* failed) {
  // A ladder match queued before one of its bots was benched (bot_health.h)
  // does not wait out that bot's connect timeout: it fails at once, charged
  // to nobody, and the ladder makes its next match without the bot.
  if (job.match.kind == "ladder") {
    for (size_t s = 0; s < job.match.bot_ids.size(); ++s) {
      if (!health_.Benched(job.match.bot_ids[s])) continue;
      const std::string why = absl::StrCat("not started: ", job.spec.seats(static_cast<int>(s)).name(),
                                           " sits out ladders (", health_.Of(job.match.bot_ids[s]).state, ")");
      FailMatch(job, why);
      *failed = true;
      return false;
    }
  }
  // A tournament waits for a benched bot within its wait (not a ladder: it
  // plays on without it).
  if (job.match.kind == "tournament") {
    if (absl::Status s = AwaitBenchedBots(job); !s.ok()) {
      if (cancel_.load()) return false;  // stopping: runs again after a restart
      FailMatch(job, std::string(s.message()));
      *failed = true;
      return false;
    }
  }
  std::vector<int> dial_in;
  if (absl::Status s = PrepareDialIn(job, &dial_in); !s.ok()) {
    ReleaseDialIn(job.match.id, dial_in);
    if (cancel_.load()) return false;  // stopping: runs again after a restart
    FailMatch(job, std::string(s.message()));
    *failed = true;
    return false;
  }
  struct Release {
    Scheduler* s;
    const std::string match_id;
    const std::vector<int>& seats;
    ~Release() { s->ReleaseDialIn(match_id, seats); }
  } release{this, job.match.id, dial_in};
  // Seats the referee reaches through the arena's relay: a dial-in bot's
  // (relayed unless it joins the referee) and a play match's person.
  std::vector<int> relayed = dial_in;
  if (job.match.kind == "play")
    for (int s = 0; s < job.spec.seats_size(); ++s)
      if (job.spec.seats(s).name() == kHumanBotName) relayed.push_back(s);
  if (!options_.referee_secret_key.empty()) {
    // Computed here, not stored: the stored spec stays free of secrets.
    // Relayed seats get their attempt's capability below instead.
    for (int s = 0; s < job.spec.seats_size(); ++s) {
      v1::SeatSpec* seat = job.spec.mutable_seats(s);
      seat->set_referee_proof(transport::RefereeProof(
          transport::BotRefereeSecret(options_.referee_secret_key, seat->name()), job.spec.match_id(), s));
    }
  }
  int attempts = job.match.attempts;
  const int32_t connect_timeout_ms = job.spec.connect_timeout_ms();  // before RouteDialIn's
  int seat_retries = 0;  // a tournament's retries after a benched bot answered again
  std::string last_error = "no referee configured";
  while (attempts < options_.max_attempts) {
    std::string referee;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return false;  // stays pending: runs again after a restart
      referee = PickReferee();
      if (referee.empty()) {
        mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Milliseconds(200));
        continue;
      }
      ++attempts;
      in_flight_[job.match.id] = InFlight{referee, attempts, job.match.ladder_id};
    }
    // An earlier attempt (in this process, before a restart, or by an arena
    // that died) may have dealt cards that its bots saw: a match whose deal
    // is its own is dealt afresh. The tables of a duplicate set keep their
    // shared deal (docs/security.md, "Secret deals").
    if (attempts > 1 && !job.spec.withhold_hand_records()) {
      if (absl::Status s = Redeal(job); !s.ok()) {
        last_error = absl::StrCat("cannot deal the match afresh for attempt ", attempts, ": ",
                                  s.message());
        break;
      }
    }
    // The salt is half of the deals' key (deal_seed.h): the referee deals
    // from (seed, salt), both secret until the deal is public.
    job.spec.set_seed_salt(job.match.seed_salt);
    // Recorded before the referee deals (the attempt's only record, failed or
    // not), so that a restart knows the attempt was made.
    store_->RecordAttempt(job.match.id, referee, attempts).IgnoreError();
    logging::Info("scheduler", "match started",
                  {{"match", job.match.id}, {"variant", job.match.variant}, {"kind", job.match.kind},
                   {"ladder", job.match.ladder_id}, {"tournament", job.match.tournament_id},
                   {"referee", referee}, {"attempt", attempts}, {"bots", SeatNames(job.spec)}});
    for (int s : dial_in) dial_in_->TakeHostLost(job.match.id, s);  // this attempt's only
    RouteDialIn(job, dial_in, referee, connect_timeout_ms);
    // Live spectators (live_hub.h): the public view as it is played, unless
    // other tables play the same deal (a duplicate set or a test block): then
    // nothing of it until every table has finished (DealPublic).
    {
      const bool withheld = job.spec.withhold_hand_records();
      job.spec.set_public_events(!withheld);
      LiveMatchInfo info;
      info.id = job.match.id;
      info.variant = job.match.variant;
      info.kind = job.match.kind;
      info.ladder_id = job.match.ladder_id;
      info.tournament_id = job.match.tournament_id;
      for (const v1::SeatSpec& seat : job.spec.seats()) info.bots.push_back(seat.name());
      info.num_hands = job.spec.num_hands();
      info.withheld = withheld;
      info.started_ms = absl::ToUnixMillis(absl::Now());
      // A table of a sealed deal is begun once (a next attempt, or a referee
      // taking it again after a restart, would set it apart from the tables
      // of its deal that had ended: Load).
      if (!withheld || !live_.IsRunning(info.id)) live_.Begin(info);
    }
    absl::StatusOr<v1::MatchFinished> finished;
    if (absl::Status gate = AuthorizeRelayedSeats(job, relayed); !gate.ok()) {
      finished = gate;
    } else {
      const std::string match_id = job.match.id;
      finished = client_->RunMatchWithEvents(
          referee, job.spec, &cancel_,
          [this, &match_id](const v1::MatchEvent& event) { ForwardLiveEvent(match_id, event); });
    }
    if (!dial_in.empty() && !cancel_.load()) {
      // A hosted seat whose host died and did not come back within the
      // decision time (or was gone when the seat was to be joined): the bot
      // is not charged, nor benched. A match played to its end is voided
      // ("host lost", never rated): running it again would deal the same
      // cards to the other bots, who saw them (docs/security.md, "Secret
      // deals"). One the referee never started (the seat was not joined: no
      // card dealt) runs again (a new attempt, the same id; a new deal unless
      // it is a duplicate table) once its bots are back, or fails after the
      // attempts or the wait.
      std::string lost = finished.ok() ? HostLostSeats(job, dial_in, *finished)
                                       : HostLostUnreachable(job, dial_in, finished.status());
      if (!lost.empty()) {
        last_error = absl::StrCat("host lost: ", lost);
        const bool again = !finished.ok() && attempts < options_.max_attempts;
        logging::Warning("scheduler",
                         again ? "host lost; the match is run again once its bots are back"
                         : finished.ok() ? "host lost; the match is voided (its deal was played)"
                                         : "host lost; no attempts left",
                         {{"match", job.match.id}, {"ladder", job.match.ladder_id},
                          {"tournament", job.match.tournament_id}, {"referee", referee},
                          {"attempt", attempts}, {"max_attempts", options_.max_attempts},
                          {"reason", lost}});
        if (!again) break;
        if (!AwaitDialInBack(job, dial_in)) {
          if (cancel_.load()) return false;  // stopping: runs again after a restart
          absl::StrAppend(&last_error, "; no host came back within ",
                          absl::ToInt64Seconds(dial_in_wait_), " s");
          break;
        }
        continue;
      }
    }
    if (finished.ok()) {
      logging::Info("scheduler", "match finished",
                    {{"match", job.match.id}, {"variant", job.match.variant},
                     {"ladder", job.match.ladder_id}, {"tournament", job.match.tournament_id},
                     {"referee", referee}, {"hands", finished->hands()},
                     {"duration_s", finished->duration_s()},
                     {"ended_early", finished->ended_early()}});
      for (int s = 0; s < finished->seats_size(); ++s) {
        const v1::SeatSummary& seat = finished->seats(s);
        if (seat.faults() == 0 && !seat.forfeited()) continue;
        logging::Warning("scheduler", "bot faulted in a match",
                         {{"match", job.match.id}, {"ladder", job.match.ladder_id},
                          {"tournament", job.match.tournament_id}, {"seat", s},
                          {"bot", seat.name()}, {"faults", seat.faults()},
                          {"forfeited", seat.forfeited()}});
      }
      std::vector<int> unhosted;
      for (int s : dial_in)
        if (dial_in_->PlayedUnhosted(job.match.id, s)) unhosted.push_back(s);
      EnqueueCommit(Finished{std::move(job), std::move(*finished), referee, attempts, std::move(unhosted)});
      return true;
    }
    if (cancel_.load()) return false;  // stopping: the match runs again after a restart
    last_error = absl::StrCat("referee ", referee, ": ", finished.status().ToString());
    if (std::optional<int> seat = UnreachableSeat(finished.status());
        seat && *seat < static_cast<int>(job.match.bot_ids.size())) {
      // One bot's fault: it sits out the ladder until it answers again
      // (bot_health.h); the match fails, charged to nobody.
      health_.MarkUnreachable(job.match.bot_ids[*seat], std::string(finished.status().message()),
                              absl::Now());
      logging::Warning("scheduler", "bot unreachable; benched from ladders",
                       {{"match", job.match.id}, {"seat", *seat},
                        {"bot", job.spec.seats(*seat).name()}});
      // A tournament waits for it and plays the match once it answers (never
      // again with the seat still broken); the try was not the referee's.
      if (job.match.kind == "tournament" && ++seat_retries <= 3) {
        absl::Status waited = AwaitBenchedBots(job);
        if (cancel_.load()) return false;
        if (waited.ok()) {
          --attempts;
          continue;
        }
        last_error = absl::StrCat(last_error, "; ", waited.message());
        break;
      }
    }
    if (!IsRefereeFailure(finished.status())) break;
    logging::Warning("scheduler",
                     attempts < options_.max_attempts ? "referee failed; the match is retried"
                                                      : "referee failed; no attempts left",
                     {{"match", job.match.id}, {"ladder", job.match.ladder_id},
                      {"tournament", job.match.tournament_id}, {"referee", referee},
                      {"attempt", attempts}, {"max_attempts", options_.max_attempts},
                      {"error", finished.status().ToString()}});
    absl::MutexLock lock(&mu_);
    // A sealed deal's table's failures count once its deal is public: the
    // tables that fail with a referee are those still playing (EmitEnd).
    if (job.spec.withhold_hand_records())
      ++held_failures_[job.match.id][referee];
    else
      metrics_->retries.Add({{"referee", referee}}).Increment();
    resting_until_[referee] = absl::Now() + options_.referee_rest;
  }
  logging::Error("scheduler", "match failed",
                 {{"match", job.match.id}, {"variant", job.match.variant},
                  {"ladder", job.match.ladder_id}, {"tournament", job.match.tournament_id},
                  {"attempts", attempts}, {"error", last_error}});
  FailMatch(job, last_error);
  *failed = true;
  return false;
}

void Scheduler::FailMatch(const Job& job, const std::string& why) {
  store_->MarkFailed(job.match.id, why).IgnoreError();
  BookSetOf(job.match);  // a set whose last table failed is booked now
  // Its end, like a finished table's, is public once its deal is: now, or
  // when its last twin ends (docs/security.md, "Secret deals").
  PublishEnd(job, false, true, 0, 0);
  FlushSealedEnds();
}

}  // namespace tarock::arena
