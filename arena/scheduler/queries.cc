// Scheduler: what the API and the pages read (leaderboards, matches, bot
// statistics, status).

#include "arena/scheduler/scheduler.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "arena/scheduler/scheduler_internal.h"
#include "arena/store/rating_pool.h"
#include "nlohmann/json.hpp"
#include "referee/engine/registry.h"

namespace tarock::arena {

namespace {

using scheduler_internal::FromJson;

}  // namespace

// ---------------------------------------------------------------------------
// Queries.

absl::StatusOr<v1::LeaderboardResponse> Scheduler::Leaderboard(const std::string& variant,
                                                                const std::string& event,
                                                                const std::string& rating_model) {
  if (!Registry::Global().Info(variant).ok())
    return absl::InvalidArgumentError(absl::StrCat("unknown variant '", variant, "'"));
  absl::StatusOr<int64_t> event_id = EventIdOf(event);
  if (!event_id.ok()) return event_id.status();
  const std::string pool = RatingPool(variant, *event_id);
  RatingModelKind kind = RatingModelKind::kPlace;
  if (!rating_model.empty()) {
    absl::StatusOr<RatingModelKind> parsed = ParseRatingModel(rating_model);
    if (!parsed.ok()) return parsed.status();
    kind = *parsed;
  } else {
    // The model of the pool's newest ladder.
    int64_t newest = 0;
    for (const LadderRow& l : store_->ListLadders()) {
      const v1::LadderConfig config = FromJson<v1::LadderConfig>(l.config);
      if (l.variant != variant || config.event() != (*event_id ? event : "") || l.id < newest)
        continue;
      absl::StatusOr<std::pair<LadderFormat, RatingModelKind>> modes = LadderModes(config);
      if (!modes.ok()) continue;
      newest = l.id;
      kind = modes->second;
    }
  }
  if (kind == RatingModelKind::kMargin) return MarginLeaderboard(variant, *event_id ? event : "", pool);
  struct Row {
    BotRow bot;
    RatingRow rating;
    double display;
  };
  std::vector<Row> rows;
  std::map<std::string, double> trend;
  // One query (bots joined, each bot's rating 10 rated matches ago).
  for (LeaderRow& l : store_->LeaderboardRows(pool, 10)) {
    const double display = model_.Display({l.rating.mu, l.rating.sigma});
    const Rating before = l.earlier ? Rating{l.earlier->first, l.earlier->second} : model_.Initial();
    trend[l.name] = display - model_.Display(before);
    BotRow b;
    b.name = std::move(l.name);
    b.owner = std::move(l.owner);
    rows.push_back({std::move(b), l.rating, display});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.display != b.display) return a.display > b.display;
    return a.bot.name < b.bot.name;
  });
  v1::LeaderboardResponse out;
  out.set_variant(variant);
  out.set_rating_model("place");
  for (size_t i = 0; i < rows.size(); ++i) {
    v1::LeaderboardEntry* e = out.add_entries();
    e->set_rank(static_cast<int>(i) + 1);
    e->set_bot(rows[i].bot.name);
    e->set_owner(rows[i].bot.owner);
    v1::RatingInfo* ri = e->mutable_rating();
    ri->set_variant(variant);
    ri->set_event(*event_id ? event : "");
    ri->set_mu(rows[i].rating.mu);
    ri->set_sigma(rows[i].rating.sigma);
    ri->set_display(rows[i].display);
    ri->set_matches(rows[i].rating.matches);
    ri->set_faults(rows[i].rating.faults);
    e->set_trend(trend[rows[i].bot.name]);
    e->set_provisional(rows[i].rating.matches < kProvisionalMatches);
  }
  return out;
}

absl::StatusOr<v1::LeaderboardResponse> Scheduler::MarginLeaderboard(const std::string& variant,
                                                                      const std::string& event,
                                                                      const std::string& pool) {
  std::vector<MarginLeaderRow> rows = store_->MarginLeaderboardRows(pool);
  std::sort(rows.begin(), rows.end(), [](const MarginLeaderRow& a, const MarginLeaderRow& b) {
    if (a.rating.mu != b.rating.mu) return a.rating.mu > b.rating.mu;
    return a.name < b.name;
  });
  std::vector<MarginRating> ratings;
  for (const MarginLeaderRow& r : rows)
    ratings.push_back(MarginRating{r.rating.mu, r.rating.sigma, r.rating.deals});
  const std::vector<bool> unseparated = margin_.UnseparatedNeighbours(ratings);
  v1::LeaderboardResponse out;
  out.set_variant(variant);
  out.set_rating_model("margin");
  out.set_unit(MarginUnit(variant));
  for (size_t i = 0; i < rows.size(); ++i) {
    const MarginRatingRow& r = rows[i].rating;
    v1::LeaderboardEntry* e = out.add_entries();
    e->set_rank(static_cast<int>(i) + 1);
    e->set_bot(rows[i].name);
    e->set_owner(rows[i].owner);
    v1::RatingInfo* ri = e->mutable_rating();
    ri->set_variant(variant);
    ri->set_event(event);
    ri->set_mu(r.mu);
    ri->set_sigma(r.sigma);
    ri->set_display(r.mu);
    ri->set_matches(r.sets);
    ri->set_faults(r.faults);
    v1::MarginRatingInfo* m = e->mutable_margin();
    m->set_mu(r.mu);
    m->set_sigma(r.sigma);
    m->set_low(margin_.Low(ratings[i]));
    m->set_high(margin_.High(ratings[i]));
    m->set_deals(r.deals);
    m->set_sets(r.sets);
    e->set_provisional(r.sets < kProvisionalMatches);
    e->set_unseparated_from_next(i < unseparated.size() && unseparated[i]);
    if (i + 1 < rows.size()) {
      absl::StatusOr<MarginDifference> d = margin_.HeadToHead({ratings[i]}, {ratings[i + 1]});
      if (d.ok()) {
        v1::HeadToHead* h = e->mutable_vs_next();
        h->set_diff(d->diff);
        h->set_sigma(d->sigma);
        h->set_low(d->low);
        h->set_high(d->high);
      }
    }
  }
  return out;
}

std::string MarginUnit(const std::string& variant) {
  // Zero-sum chip games pay in chips; the Slovenian family scores points.
  return variant.rfind("tapp-tarock", 0) == 0 || variant == "westfest" ? "chips a deal"
                                                                       : "points a deal";
}

v1::ListTournamentsResponse Scheduler::ListTournaments(int limit) {
  v1::ListTournamentsResponse out;
  for (const TournamentSummaryRow& t : store_->ListTournaments(limit)) {
    v1::TournamentInfo* info = out.add_tournaments();
    info->set_id(t.tournament.id);
    info->set_name(t.tournament.name);
    info->set_variant(t.tournament.variant);
    info->set_format(t.tournament.format);
    info->set_matches_total(t.matches);
    info->set_matches_done(t.done);
    info->set_matches_failed(t.failed);
    info->set_finished(t.done + t.failed == t.matches);
    info->set_created_at(t.created_at);
    const v1::RunTournamentRequest config = FromJson<v1::RunTournamentRequest>(t.tournament.config);
    absl::StatusOr<VariantInfo> variant = Registry::Global().Info(t.tournament.variant);
    const int n = variant.ok() ? variant->num_seats : 0;
    info->set_seats(n);
    info->set_deals(config.deals() ? config.deals() : 4);
    info->set_hands_per_match(config.hands_per_match() ? config.hands_per_match() : 2 * n);
    info->set_event(config.event());
  }
  return out;
}

absl::StatusOr<v1::BotStatsResponse> Scheduler::BotStats(const std::string& name) {
  absl::StatusOr<BotRow> bot = store_->FindBot(name);
  if (!bot.ok()) return bot.status();
  v1::BotStatsResponse out;
  out.set_bot(bot->name);
  std::map<std::string, int> faults;
  int64_t decisions = 0;
  double decision_ms = 0;
  for (const BotVariantStatsRow& r : store_->BotStats(bot->id)) {
    v1::VariantStats* v = out.add_variants();
    v->set_variant(r.variant);
    v->set_matches(r.matches);
    v->set_wins(r.wins);
    v->set_mean_rank(r.matches ? r.rank_sum / r.matches : 0);
    v->set_total(r.total);
    v->set_hands(r.scored_hands);
    v->set_hand_total(r.hand_total);
    v->set_settlement(r.total - r.hand_total);
    v->set_declarer_hands(r.sums.declarer_hands);
    v->set_declarer_won(r.sums.declarer_won);
    v->set_declarer_score(r.sums.declarer_score);
    v->set_defender_hands(r.sums.defender_hands);
    v->set_defender_won(r.sums.defender_won);
    v->set_defender_score(r.sums.defender_score);
    v->set_decisions(r.sums.decisions);
    v->set_mean_decision_ms(r.sums.decisions ? r.sums.decision_ms / r.sums.decisions : 0);
    v->set_faults(r.sums.faults);
    decisions += r.sums.decisions;
    decision_ms += r.sums.decision_ms;
    for (const auto& [k, c] : r.fault_kinds) faults[k] += c;
  }
  out.set_decisions(decisions);
  out.set_mean_decision_ms(decisions ? decision_ms / decisions : 0);
  for (const auto& [k, c] : faults) {
    v1::FaultCount* f = out.add_faults();
    f->set_kind(k);
    f->set_count(c);
  }
  return out;
}

bool Scheduler::DealPublic(const MatchRow& m) {
  return (m.status == "done" || m.status == "failed") && store_->CountUnfinishedWithSeed(m.seed) == 0;
}

std::vector<bool> Scheduler::DealsPublic(const std::vector<MatchRow>& matches) {
  std::map<uint64_t, bool> seed_open;  // seed -> no table dealt from it unfinished
  std::vector<bool> out;
  out.reserve(matches.size());
  for (const MatchRow& m : matches) {
    if (m.status != "done" && m.status != "failed") {
      out.push_back(false);
      continue;
    }
    auto it = seed_open.find(m.seed);
    if (it == seed_open.end())
      it = seed_open.emplace(m.seed, store_->CountUnfinishedWithSeed(m.seed) == 0).first;
    out.push_back(it->second);
  }
  return out;
}

absl::StatusOr<std::string> Scheduler::PublicRecordOf(const MatchRow& m) {
  if (m.status != "done" || !DealPublic(m))
    return absl::FailedPreconditionError("the deal of this match is not public yet");
  return store_->RecordOf(m.id);
}

absl::StatusOr<v1::ArenaMatch> Scheduler::GetMatch(const std::string& id, bool with_record) {
  absl::StatusOr<MatchRow> m = store_->GetMatch(id);
  if (!m.ok()) return m.status();
  // A table that has not finished and one that finished while a twin plays
  // its deal take the same steps here (the same store reads, the lock, the
  // spec parsed, no seats read): their answer times told them apart (third
  // red team, 2026-11-29; docs/security.md, "Secret deals").
  const bool finished = m->status == "done" || m->status == "failed";
  const bool twins_open = store_->CountUnfinishedWithSeed(m->seed) != 0;
  // Secret deals (deal_seal.h): the seed, its salt and the record only once
  // every table of the deal has finished it; the commitment always.
  const bool deal_public = finished && !twins_open;
  {
    // Running is a state in memory (see the header).
    absl::MutexLock lock(&mu_);
    auto it = in_flight_.find(id);
    if (!finished) {
      m->status = "pending";
      if (it != in_flight_.end() && !it->second.referee.empty()) {
        m->status = "running";
        m->referee = it->second.referee;
        m->attempts = it->second.attempts;
      } else if (resumed_.count(id)) {
        m->status = "running";  // a sealed deal's table that had started
      }
    }
  }
  std::optional<v1::MatchSpec> spec;
  if (!deal_public) spec = FromJson<v1::MatchSpec>(m->spec);
  v1::ArenaMatch out;
  out.set_id(m->id);
  out.set_variant(m->variant);
  // A finished table whose deal other tables still play is shown as running
  // until that deal is public: that it ended, and when, would tell how it
  // went (docs/security.md, "Secret deals").
  out.set_status(finished && !deal_public ? "running" : m->status);
  out.set_kind(m->kind);
  // Which referee runs a table of a sealed deal, and its attempts, are shown
  // with its result: a restart retries the unfinished tables (a new attempt,
  // perhaps another referee) and not those that had ended, which would tell
  // them apart (docs/security.md, "Secret deals").
  if (deal_public || !spec->withhold_hand_records()) {
    out.set_referee(m->referee);
    out.set_attempts(m->attempts);
  }
  out.set_deal_public(deal_public);
  out.set_seed_commitment(m->seed_commitment);
  if (deal_public) {
    out.set_seed(m->seed);
    out.set_seed_salt(m->seed_salt);
    // When and how it ended (its place in the completion order, how long it
    // took, when, why it failed) and the hands played are its result too:
    // sealed with its cards, like the seats' totals below. Its status is
    // public from the start (docs/security.md, "Secret deals").
    out.set_seq(m->seq);
    out.set_hands(m->hands);
    out.set_duration_s(m->duration_s);
    out.set_finished_at(m->finished_at);
    out.set_error(m->error);
  }
  out.set_ladder_id(m->ladder_id);
  out.set_tournament_id(m->tournament_id);
  out.set_test_id(m->test_id);
  out.set_event(EventSlugOf(m->event_id));
  // A table's result (totals, places, faults, forfeits, hands played, the
  // hosted versions) is sealed with its cards: a twin table still playing the
  // deal would learn how it went (docs/security.md, "Secret deals"). Until
  // then its seats are the spec's, whether it runs or has ended.
  std::vector<SeatRow> seats;
  if (deal_public) seats = store_->SeatsOf(m->id);
  if (seats.empty()) {
    if (!spec) spec = FromJson<v1::MatchSpec>(m->spec);
    for (int s = 0; s < spec->seats_size(); ++s) {
      v1::ArenaSeat* seat = out.add_seats();
      seat->set_seat(s);
      seat->set_bot(spec->seats(s).name());
    }
  }
  for (const SeatRow& s : seats) {
    v1::ArenaSeat* seat = out.add_seats();
    seat->set_seat(s.seat);
    seat->set_bot(s.bot);
    seat->set_version_id(s.version_id);
    seat->set_total(s.total);
    seat->set_faults(s.faults);
    seat->set_forfeited(s.forfeited);
    seat->set_rank(s.rank);
  }
  if (with_record && m->status == "done" && deal_public) {
    absl::StatusOr<std::string> record = PublicRecordOf(*m);
    if (record.ok()) out.set_record_json(*record);
  }
  return out;
}

absl::StatusOr<std::vector<BotRow>> Scheduler::BotsMatching(const std::string& filter) {
  // The exact name (one indexed look-up: a bot page's own list), else a scan.
  if (absl::StatusOr<BotRow> exact = store_->FindBot(filter); exact.ok())
    return std::vector<BotRow>{*std::move(exact)};
  std::vector<BotRow> all = store_->ListBots(true);
  for (const BotRow& b : all)
    if (absl::EqualsIgnoreCase(b.name, filter)) return std::vector<BotRow>{b};
  std::vector<BotRow> out;
  const std::string needle = absl::AsciiStrToLower(filter);
  for (BotRow& b : all)
    if (absl::StrContains(absl::AsciiStrToLower(b.name), needle)) out.push_back(std::move(b));
  if (out.empty()) return absl::NotFoundError(absl::StrCat("no bot named like '", filter, "'"));
  // Bounded: each bot is two bound values of the list's SQL.
  if (out.size() > kMaxBotsMatching)
    return absl::InvalidArgumentError(absl::StrCat("'", filter, "' is part of ", out.size(),
                                                   " bot names; give more of the name"));
  return out;
}

absl::StatusOr<v1::ListMatchesResponse> Scheduler::ListMatches(const v1::ListMatchesRequest& r) {
  std::vector<int64_t> bot_ids;
  std::set<std::string> bot_names;
  v1::ListMatchesResponse out;
  if (!r.bot().empty()) {
    absl::StatusOr<std::vector<BotRow>> bots = BotsMatching(r.bot());
    if (!bots.ok()) return bots.status();
    for (const BotRow& b : *bots) {
      bot_ids.push_back(b.id);
      bot_names.insert(b.name);
      out.add_bots(b.name);
    }
  }
  if (r.limit() < 0 || r.limit() > 10000) return absl::InvalidArgumentError("limit must be 0..10000");
  if (r.offset() < 0) return absl::InvalidArgumentError("offset must be non-negative");
  MatchFilter filter{r.variant(), 0, bot_ids, r.kind(), r.ladder_id(), r.tournament_id(), r.status(),
                     r.test_id()};
  if (!r.event().empty()) {
    absl::StatusOr<int64_t> event_id = EventIdOf(r.event());
    if (!event_id.ok()) return event_id.status();
    filter.event_id = *event_id;
  }
  const int limit = r.limit() ? r.limit() : 50;
  // An offset past the end shows the last page (or none when nothing passes).
  auto clamp = [limit](int64_t offset, int64_t total) -> int64_t {
    if (offset < total || total == 0) return total == 0 ? 0 : offset;
    return ((total - 1) / limit) * limit;
  };
  int64_t total = 0;
  if (r.status() == "running") {
    // Running is a state in memory (GetMatch); the store has these matches
    // as pending. At most --max_parallel of them: filtered here. Finished
    // tables whose deal other tables still play are shown as running too
    // (GetMatch): from the store, as many as such sets hold.
    std::set<std::string> ids;
    {
      absl::MutexLock lock(&mu_);
      for (const auto& [id, flight] : in_flight_)
        if (!flight.referee.empty()) ids.insert(id);
      ids.insert(resumed_.begin(), resumed_.end());
    }
    MatchFilter sealed = filter;
    sealed.status.clear();
    sealed.sealed_finished = true;
    for (const MatchRow& m : store_->ListMatchesPage(sealed, 0, 10000, nullptr)) ids.insert(m.id);
    std::vector<v1::ArenaMatch> running;
    for (const std::string& id : ids) {
      absl::StatusOr<v1::ArenaMatch> m = GetMatch(id, false);
      if (!m.ok() || m->status() != "running") continue;
      if ((!r.variant().empty() && m->variant() != r.variant()) ||
          (!r.kind().empty() && m->kind() != r.kind()) ||
          (r.ladder_id() && m->ladder_id() != r.ladder_id()) ||
          (r.tournament_id() && m->tournament_id() != r.tournament_id()) ||
          (r.test_id() && m->test_id() != r.test_id()) ||
          (!r.event().empty() && m->event() != (r.event() == "open" ? "" : r.event())) ||
          (!r.bot().empty() && std::none_of(m->seats().begin(), m->seats().end(),
                                            [&](const v1::ArenaSeat& x) { return bot_names.count(x.bot()); })))
        continue;
      running.push_back(*std::move(m));
    }
    out.set_total(static_cast<int64_t>(running.size()));
    const size_t offset = clamp(r.offset(), out.total());
    out.set_offset(static_cast<int>(offset));
    for (size_t i = offset; i < running.size() && i < offset + limit; ++i)
      *out.add_matches() = running[i];
    return out;
  }
  if (r.status() == "pending") {
    // Not started: the store has the tables in flight as pending too, and a
    // sealed table that ends leaves them (done) while the public still sees
    // it running; leaving the tables in flight out keeps this count still
    // when one ends (docs/security.md, "Secret deals").
    absl::MutexLock lock(&mu_);
    for (const auto& [id, flight] : in_flight_)
      if (!flight.referee.empty()) filter.exclude_ids.push_back(id);
    for (const std::string& id : resumed_)
      if (!in_flight_.count(id) || in_flight_[id].referee.empty()) filter.exclude_ids.push_back(id);
  }
  std::vector<MatchRow> page = store_->ListMatchesPage(filter, r.offset(), limit, &total);
  if (r.offset() > 0 && page.empty() && total > 0) {
    page = store_->ListMatchesPage(filter, static_cast<int>(clamp(r.offset(), total)), limit, &total);
    out.set_offset(static_cast<int>(clamp(r.offset(), total)));
  } else {
    out.set_offset(r.offset());
  }
  out.set_total(total);
  for (const MatchRow& m : page) {
    absl::StatusOr<v1::ArenaMatch> match = GetMatch(m.id, false);
    // A pending row may be running by now: it is listed under "running".
    if (match.ok() && (r.status().empty() || match->status() == r.status()))
      *out.add_matches() = *match;
  }
  return out;
}

v1::StatusResponse Scheduler::GetStatus() {
  v1::StatusResponse out;
  // The store first, without mu_: a commit can hold the store for
  // milliseconds, and workers need mu_ to start their next match.
  // As the public sees them: a finished table whose deal other tables still
  // play is running until that deal is public (GetMatch).
  out.set_matches_done(store_->CountPublicFinished("done", 0));
  out.set_matches_failed(store_->CountPublicFinished("failed", 0));
  out.set_matches_per_minute(store_->CountDoneSince(300) / 5.0);
  // By id, united with the tables in flight below: between a sealed table's
  // commit and the writer's erase from in_flight_ it is in both, and a sum
  // counted it twice for those milliseconds (an end's timing).
  MatchFilter sealed_filter;
  sealed_filter.sealed_finished = true;
  std::set<std::string> running;
  for (const MatchRow& m : store_->ListMatchesPage(sealed_filter, 0, 100000, nullptr)) running.insert(m.id);
  for (const VariantInfo& v : Registry::Global().List()) out.add_variants(v.name);
  absl::MutexLock lock(&mu_);
  out.set_queue_depth(PublicQueueDepth());
  for (const auto& [id, flight] : in_flight_) running.insert(id);
  running.insert(resumed_.begin(), resumed_.end());
  out.set_running(static_cast<int>(running.size()));
  int available = 0;
  for (const std::string& r : referees_)
    if (!resting_until_.count(r) || resting_until_[r] <= absl::Now()) ++available;
  out.set_referees_available(available);
  out.set_referees_total(static_cast<int>(referees_.size()));
  // A sealed deal's table that had started is running to the public, even
  // while it waits for a dial-in bot to come back (after a restart).
  std::set<std::string> said;  // the tables of a sealed deal share one line
  for (const auto& [match, line] : waiting_)
    if (!resumed_.count(match) && said.insert(line).second) out.add_waiting_for_dial_in(line);
  return out;
}

}  // namespace tarock::arena
