// Scheduler: the commit writer (finished matches and their ratings in
// batches), rating a match, and rebuilding the ratings (--verify_ratings).

#include "arena/scheduler/scheduler.h"
#include "arena/store/rating_pool.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "arena/scheduler/match_stats.h"
#include "arena/scheduler/record_split.h"
#include "arena/scheduler/scheduler_internal.h"
#include "nlohmann/json.hpp"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "referee/logging/log.h"

namespace tarock::arena {

namespace {

using scheduler_internal::kSlowCommit;

}  // namespace

// ---------------------------------------------------------------------------
// Committing finished matches and their ratings.

void Scheduler::EnqueueCommit(Finished finished) {
  absl::MutexLock lock(&commit_mu_);
  auto room = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_) {
    return commits_closed_ || commits_.size() < kMaxQueuedCommits;
  };
  commit_mu_.Await(absl::Condition(&room));
  commits_.push_back(std::move(finished));
  --jobs_running_;
}

void Scheduler::WriterLoop() {
  for (;;) {
    std::vector<Finished> batch;
    {
      absl::MutexLock lock(&commit_mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_) {
        return commits_closed_ || !commits_.empty();
      };
      commit_mu_.Await(absl::Condition(&ready));
      if (commits_.empty()) return;  // closed, and everything committed
      const size_t max_batch = static_cast<size_t>(std::max(1, options_.max_commit_batch));
      auto full = [this, max_batch]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(commit_mu_) {
        return commits_closed_ || commits_.size() >= max_batch || jobs_running_ == 0;
      };
      if (options_.commit_delay > absl::ZeroDuration())
        commit_mu_.AwaitWithTimeout(absl::Condition(&full), options_.commit_delay);
      while (!commits_.empty() && batch.size() < max_batch) {
        batch.push_back(std::move(commits_.front()));
        commits_.pop_front();
      }
    }
    CommitBatch(std::move(batch));
  }
}

void Scheduler::CommitBatch(std::vector<Finished> batch) {
  std::vector<MatchCommit> commits;
  commits.reserve(batch.size());
  for (const Finished& f : batch)
  {
    commits.push_back(
        {f.job.match.id, MatchResultOf(f.result, f.job.match.bot_ids, f.referee, f.attempts)});
    RecordHostedVersions(f.result, f.unhosted_seats, &commits.back().result);
  }
  // Each seat's health (bot_health.h): a seat that forfeited or stopped
  // answering benches its bot; a clean one makes it online again.
  for (size_t i = 0; i < commits.size(); ++i) {
    const std::vector<int64_t>& bots = batch[i].job.match.bot_ids;
    for (const SeatRow& seat : commits[i].result.seats) {
      if (seat.seat < 0 || seat.seat >= static_cast<int>(bots.size())) continue;
      int silent = 0;
      for (absl::string_view kind : absl::StrSplit(seat.fault_kinds, ',', absl::SkipEmpty())) {
        std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(kind, ':');
        int count = 0;
        if ((kv.first == "timeout" || kv.first == "disconnect") && absl::SimpleAtoi(kv.second, &count))
          silent += count;
      }
      health_.OnSeatFinished(bots[seat.seat], seat.forfeited, silent, absl::Now(),
                             batch[i].job.spec.withhold_hand_records());
    }
  }
  // Several arenas: committed only while this arena holds the lease.
  if (Shared())
    for (MatchCommit& c : commits) c.result.lease_owner = options_.lease_owner;
  // Play and test matches are never rated; a margin ladder's tables are
  // rated per set (BookSetOf, below). Decided here: the RateFn runs with the
  // store's lock held and must not read the store. The store may also ask it
  // for earlier tables whose deal became public (MatchRow::rating_wait):
  // those are decided from the ladder models cached when they were committed
  // (a ladder missing from the cache rates on places, as PlaceRated does).
  std::set<std::string> in_batch, place_rated;
  for (const Finished& f : batch) {
    in_batch.insert(f.job.match.id);
    if (PlaceRated(f.job.match)) place_rated.insert(f.job.match.id);
  }
  std::map<int64_t, RatingModelKind> ladder_models;
  {
    absl::MutexLock lock(&models_mu_);
    ladder_models = ladder_models_;
  }
  Store::RateFn rate = [&](const MatchRow& match, const MatchResultRow& result,
                           const std::vector<std::optional<RatingRow>>& current) {
    bool rated = place_rated.count(match.id) > 0;
    if (!in_batch.count(match.id)) {
      auto it = ladder_models.find(match.ladder_id);
      rated = match.kind != "play" && match.kind != "test" &&
              (match.kind != "ladder" || match.ladder_id == 0 || it == ladder_models.end() ||
               it->second == RatingModelKind::kPlace);
    }
    if (!rated) return std::vector<RatingRow>{};
    return RateMatch(model_, RatingPool(match.variant, match.event_id), result.seats, current);
  };
  const absl::Time commit_start = absl::Now();
  const std::vector<CommitOutcome> outcomes = store_->CommitMatches(commits, rate);
  if (const absl::Duration took = absl::Now() - commit_start; took > kSlowCommit)
    logging::Warning("store", "slow commit",
                     {{"matches", commits.size()}, {"ms", absl::ToDoubleMilliseconds(took)},
                      {"threshold_ms", absl::ToInt64Milliseconds(kSlowCommit)},
                      {"first_match", commits.empty() ? std::string() : commits.front().id}});
  for (size_t i = 0; i < batch.size(); ++i) {
    const Job& job = batch[i].job;
    const CommitOutcome& o = outcomes[i];
    if (!o.status.ok()) {
      logging::Error("store", "match commit failed",
                     {{"match", job.match.id}, {"ladder", job.match.ladder_id},
                      {"tournament", job.match.tournament_id}, {"error", o.status.ToString()}});
      store_->MarkFailed(job.match.id, std::string(o.status.message())).IgnoreError();
      PublishEnd(job, false, true, 0, 0);
      continue;
    }
    // Its end, hands played and duration are a table's result: sealed with
    // its deal (docs/security.md, "Secret deals"). Not counted again when it
    // was committed before.
    PublishEnd(job, true, o.committed, batch[i].result.hands(), batch[i].result.duration_s());
    if (!o.committed) continue;
    // Earlier tables rated in this commit, now that their deal is public
    // (before this match's own ratings, which come after them).
    for (const RatingRow& r : o.late_ratings)
      if (absl::StatusOr<BotRow> bot = store_->BotById(r.bot_id); bot.ok())
        SetBotMetrics(bot->name, r);
    // The committed ratings, without reading them back: the seat names of the
    // spec are the bots' names.
    for (const RatingRow& r : o.ratings) {
      for (int s = 0; s < job.spec.seats_size() && s < static_cast<int>(job.match.bot_ids.size());
           ++s) {
        if (job.match.bot_ids[s] != r.bot_id) continue;
        SetBotMetrics(job.spec.seats(s).name(), r);
        break;
      }
    }
  }
  // Spectators see the end once the result is stored (the page then reads
  // it), and a sealed table's once its deal is public.
  FlushSealedEnds();
  // A duplicate set is rated once its last table is committed (or failed).
  for (size_t i = 0; i < batch.size(); ++i)
    if (batch[i].job.match.set_tables > 0) BookSetOf(batch[i].job.match);
  absl::MutexLock lock(&mu_);
  for (const Finished& f : batch) {
    in_flight_.erase(f.job.match.id);
    if (f.job.match.ladder_id) refill_ = true;  // a ladder may have ended: the dispatcher looks
    if (f.job.match.test_id) refill_ = true;    // a test's block may be complete
  }
  SetRunningGauge();
}

void Scheduler::PublishEnd(const Job& job, bool done, bool counted, int hands, double duration_s) {
  SealedEnd end{job.match.id, job.match.variant, done, counted, hands, duration_s};
  // Tables that share their deal withhold hand records (tournament
  // rotations, ladder sets, test blocks); any other deal is public now.
  if (job.spec.withhold_hand_records()) {
    {
      // Running as a sealed end from now on, not in flight as well: the
      // gauge counted it twice until the writer's erase (an end's timing).
      absl::MutexLock lock(&mu_);
      in_flight_.erase(job.match.id);
      resumed_.erase(job.match.id);
      ++sealed_ends_count_;
      SetRunningGauge();
    }
    absl::MutexLock lock(&sealed_ends_mu_);
    sealed_ends_[job.match.seed].push_back(std::move(end));
    return;
  }
  EmitEnd(end);
}

void Scheduler::EmitEnd(const SealedEnd& e) {
  if (e.counted)
    metrics_->matches.Add({{"variant", e.variant}, {"outcome", e.done ? "done" : "failed"}})
        .Increment();
  if (e.counted && e.done) {
    metrics_->hands.Add({{"variant", e.variant}, {"outcome", "played"}}).Increment(e.hands);
    metrics_->duration.Add({{"variant", e.variant}}, metrics_->duration_buckets)
        .Observe(e.duration_s);
  }
  client_->ReleaseHeldMetrics(e.match_id);
  std::map<std::string, int> failures;  // by referee
  {
    absl::MutexLock lock(&mu_);
    if (auto it = held_failures_.find(e.match_id); it != held_failures_.end()) {
      failures = std::move(it->second);
      held_failures_.erase(it);
    }
  }
  for (const auto& [referee, n] : failures) metrics_->retries.Add({{"referee", referee}}).Increment(n);
  live_.End(e.match_id, e.done ? R"({"status":"done"})" : R"({"status":"failed"})");
}

void Scheduler::FlushSealedEnds() {
  std::vector<SealedEnd> ends;
  {
    absl::MutexLock lock(&sealed_ends_mu_);
    for (auto it = sealed_ends_.begin(); it != sealed_ends_.end();) {
      if (store_->CountUnfinishedWithSeed(it->first) != 0) {
        ++it;
        continue;
      }
      for (SealedEnd& e : it->second) ends.push_back(std::move(e));
      it = sealed_ends_.erase(it);
    }
    sealed_ends_count_ -= static_cast<int64_t>(ends.size());
  }
  if (ends.empty()) return;
  for (const SealedEnd& e : ends) EmitEnd(e);
  absl::MutexLock lock(&mu_);
  // Their workers' slots are free now (WorkerLoop).
  for (const SealedEnd& e : ends) {
    auto it = sealed_slots_.find(e.match_id);
    if (it == sealed_slots_.end()) continue;
    if (it->second.leave) --leaving_;
    sealed_slots_.erase(it);
  }
  SetRunningGauge();
}

void Scheduler::SetRunningGauge() {
  int resumed = 0;  // running to the public, not in flight
  for (const std::string& id : resumed_)
    if (!in_flight_.count(id)) ++resumed;
  metrics_->running.Set(static_cast<double>(in_flight_.size()) +
                        static_cast<double>(sealed_ends_count_.load()) + resumed);
  metrics_->queue_depth.Set(PublicQueueDepth());
}

MatchResultRow MatchResultOf(const v1::MatchFinished& finished, const std::vector<int64_t>& bot_ids,
                             const std::string& referee, int attempts) {
  const int n = std::min(finished.seats_size(), static_cast<int>(bot_ids.size()));
  std::vector<int64_t> totals;
  std::vector<bool> forfeited;
  for (int s = 0; s < n; ++s) {
    totals.push_back(finished.seats(s).total());
    forfeited.push_back(finished.seats(s).forfeited());
  }
  const std::vector<int> ranks = RanksFromTotals(totals, forfeited);
  MatchResultRow result;
  result.record_json = finished.record_json();
  result.duration_s = finished.duration_s();
  result.hands = finished.hands();
  result.referee = referee;
  result.attempts = attempts;
  for (int s = 0; s < n; ++s) {
    SeatRow seat;
    seat.seat = s;
    seat.bot_id = bot_ids[s];
    seat.total = totals[s];
    seat.faults = finished.seats(s).faults();
    seat.forfeited = forfeited[s];
    seat.rank = ranks[s];
    seat.hand_scores.emplace();
    for (const v1::HandFinished& h : finished.hand_results())
      if ((!h.redeal() || h.counts_as_hand()) && s < h.scores_size())
        seat.hand_scores->push_back(h.scores(s));
    result.seats.push_back(seat);
  }
  if (std::optional<std::vector<std::string_view>> deals =
          TopLevelArrayElements(finished.record_json(), "deals"))
    result.hand_records.assign(deals->begin(), deals->end());
  AddSeatStats(finished, &result);  // declarer/defender, decisions, faults by kind
  return result;
}

std::vector<RatingRow> RateMatch(const RatingModel& model, const std::string& variant,
                                 const std::vector<SeatRow>& seats,
                                 const std::vector<std::optional<RatingRow>>& current) {
  std::vector<int64_t> bot_order;
  std::map<int64_t, std::vector<int>> seats_of;
  for (int s = 0; s < static_cast<int>(seats.size()); ++s) {
    if (!seats_of.count(seats[s].bot_id)) bot_order.push_back(seats[s].bot_id);
    seats_of[seats[s].bot_id].push_back(s);
  }
  std::vector<Rating> players;
  std::vector<int64_t> mean_totals;
  std::vector<bool> lost;
  std::vector<RatingRow> base;
  for (int64_t bot : bot_order) {
    const std::vector<int>& ss = seats_of[bot];
    const std::optional<RatingRow>& cur = current[ss[0]];
    RatingRow row = cur ? *cur
                        : RatingRow{bot, variant, model.Initial().mu, model.Initial().sigma, 0, 0};
    int64_t sum = 0;
    bool forfeited = false;
    for (int s : ss) {
      sum += seats[s].total;
      row.faults += seats[s].faults;
      forfeited = forfeited || seats[s].forfeited;
    }
    mean_totals.push_back(sum / static_cast<int64_t>(ss.size()));
    lost.push_back(forfeited);
    players.push_back({row.mu, row.sigma});
    base.push_back(row);
  }
  std::vector<RatingRow> out;
  if (players.size() < 2) return out;  // a bot alone against itself teaches nothing
  std::vector<Rating> updated = model.Update(players, RanksFromTotals(mean_totals, lost));
  for (size_t i = 0; i < base.size(); ++i) {
    RatingRow row = base[i];
    row.mu = updated[i].mu;
    row.sigma = updated[i].sigma;
    ++row.matches;
    out.push_back(row);
  }
  return out;
}

absl::Status VerifyRatings(Store& store, const RatingModel& model,
                           const MarginRatingModel& margin) {
  // Which ladders rate on margins: their tables are not place-rated.
  std::set<int64_t> margin_ladders;
  for (const LadderRow& l : store.ListLadders()) {
    absl::StatusOr<std::pair<LadderFormat, RatingModelKind>> modes =
        LadderModes(scheduler_internal::FromJson<v1::LadderConfig>(l.config));
    if (modes.ok() && modes->second == RatingModelKind::kMargin) margin_ladders.insert(l.id);
  }
  std::map<std::pair<int64_t, std::string>, RatingRow> rebuilt;
  // Resets (Store::ResetRatings) drop a bot's ratings after the match they follow.
  const std::vector<std::pair<int64_t, int64_t>> resets = store.RatingResets();
  size_t next_reset = 0;
  auto reset_until = [&](int64_t seq) {
    for (; next_reset < resets.size() && resets[next_reset].second < seq; ++next_reset)
      for (auto it = rebuilt.begin(); it != rebuilt.end();)
        it = it->first.first == resets[next_reset].first ? rebuilt.erase(it) : std::next(it);
  };
  // A match rated after its own commit (its deal was not public then:
  // MatchRow::rating_wait) is replayed where the live commit rated it: in the
  // commit of seq rating_wait, before that match, in seq order.
  std::map<int64_t, std::vector<std::pair<MatchRow, std::vector<SeatRow>>>> late;
  auto rate = [&](const MatchRow& m, const std::vector<SeatRow>& seats) {
    if (m.kind == "play" || m.kind == "test") return;  // never rated
    if (m.kind == "ladder" && margin_ladders.count(m.ladder_id)) return;  // rated per set
    std::vector<std::optional<RatingRow>> current;
    for (const SeatRow& s : seats) {
      auto it = rebuilt.find({s.bot_id, RatingPool(m.variant, m.event_id)});
      current.push_back(it == rebuilt.end() ? std::nullopt : std::optional<RatingRow>(it->second));
    }
    for (const RatingRow& r : RateMatch(model, RatingPool(m.variant, m.event_id), seats, current))
      rebuilt[{r.bot_id, r.variant}] = r;
  };
  store.ForEachDoneMatch([&](const MatchRow& m, const std::vector<SeatRow>& seats) {
    reset_until(m.seq);
    if (auto it = late.find(m.seq); it != late.end()) {
      for (const auto& [lm, ls] : it->second) rate(lm, ls);
      late.erase(it);
    }
    if (m.rating_wait > 0) late[m.rating_wait].emplace_back(m, seats);
    if (m.rating_wait == 0) rate(m, seats);  // -1: still waiting for its deal
  });
  reset_until(std::numeric_limits<int64_t>::max());
  size_t stored_count = 0;
  for (const BotRow& b : store.ListBots(true)) {
    for (const RatingRow& r : store.RatingsOfBot(b.id)) {
      ++stored_count;
      auto it = rebuilt.find({b.id, r.variant});
      if (it == rebuilt.end())
        return absl::DataLossError(absl::StrCat("bot ", b.name, " has a stored ", r.variant,
                                                " rating that no result explains"));
      const RatingRow& x = it->second;
      if (x.mu != r.mu || x.sigma != r.sigma || x.matches != r.matches || x.faults != r.faults)
        return absl::DataLossError(absl::StrFormat(
            "bot %s %s: stored mu %.17g sigma %.17g matches %d faults %d, rebuilt mu %.17g "
            "sigma %.17g matches %d faults %d",
            b.name, r.variant, r.mu, r.sigma, r.matches, r.faults, x.mu, x.sigma, x.matches,
            x.faults));
    }
  }
  if (stored_count != rebuilt.size())
    return absl::DataLossError(absl::StrCat(rebuilt.size(), " ratings rebuilt, ", stored_count,
                                            " stored"));

  // Margin ratings: the booked sets replayed in booking order.
  std::map<std::pair<int64_t, std::string>, MarginRatingRow> margins;
  std::map<std::string, MarginNoiseRow> noises;
  for (const MarginSetRow& set : store.BookedSets()) {
    const std::vector<SetTableRow> tables = store.SetTables(set.ladder_id, set.seed);
    std::map<int64_t, MarginRatingRow> current;
    for (const SetTableRow& t : tables)
      for (const SeatRow& seat : t.seats) {
        auto it = margins.find({seat.bot_id, set.pool});
        if (it != margins.end()) current[seat.bot_id] = it->second;
      }
    absl::StatusOr<Store::SetRating> rated = RateSet(margin, tables, current, noises[set.pool]);
    if (!rated.ok())
      return absl::DataLossError(absl::StrCat("set ", set.seq, " (ladder ", set.ladder_id,
                                              "): ", rated.status().message()));
    noises[set.pool] = rated->noise;
    for (MarginRatingRow r : rated->ratings) {
      r.pool = set.pool;
      margins[{r.bot_id, set.pool}] = r;
    }
  }
  size_t stored_margins = 0;
  for (const BotRow& b : store.ListBots(true)) {
    for (const MarginRatingRow& r : store.MarginRatingsOfBot(b.id)) {
      ++stored_margins;
      auto it = margins.find({b.id, r.pool});
      if (it == margins.end())
        return absl::DataLossError(absl::StrCat("bot ", b.name, " has a stored ", r.pool,
                                                " margin rating that no set explains"));
      const MarginRatingRow& x = it->second;
      if (x.mu != r.mu || x.sigma != r.sigma || x.deals != r.deals || x.sets != r.sets ||
          x.faults != r.faults)
        return absl::DataLossError(absl::StrFormat(
            "bot %s %s (margin): stored mu %.17g sigma %.17g deals %d sets %d faults %d, "
            "rebuilt mu %.17g sigma %.17g deals %d sets %d faults %d",
            b.name, r.pool, r.mu, r.sigma, r.deals, r.sets, r.faults, x.mu, x.sigma, x.deals,
            x.sets, x.faults));
    }
  }
  if (stored_margins != margins.size())
    return absl::DataLossError(absl::StrCat(margins.size(), " margin ratings rebuilt, ",
                                            stored_margins, " stored"));
  for (const auto& [pool, stored] : store.MarginNoises()) {
    auto it = noises.find(pool);
    if (it == noises.end() || it->second.sum_sq != stored.sum_sq ||
        it->second.residuals != stored.residuals)
      return absl::DataLossError(absl::StrCat("the margin noise of ", pool,
                                              " differs from the one its sets rebuild"));
  }
  return absl::OkStatus();
}

void Scheduler::SetBotMetrics(const std::string& bot, const RatingRow& r) {
  prometheus::Labels labels = {{"bot", bot}, {"variant", r.variant}};
  metrics_->rating_mu.Add(labels).Set(r.mu);
  metrics_->rating_sigma.Add(labels).Set(r.sigma);
  metrics_->bot_matches.Add(labels).Set(r.matches);
  metrics_->bot_faults.Add(labels).Set(r.faults);
}

void Scheduler::SetMarginMetrics(const std::string& bot, const MarginRatingRow& r) {
  prometheus::Labels labels = {{"bot", bot}, {"variant", r.pool}};
  metrics_->margin_mu.Add(labels).Set(r.mu);
  metrics_->margin_sigma.Add(labels).Set(r.sigma);
  metrics_->margin_deals.Add(labels).Set(static_cast<double>(r.deals));
}

}  // namespace tarock::arena
