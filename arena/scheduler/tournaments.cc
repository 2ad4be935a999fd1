// Scheduler: tournaments (round robin and gauntlet, duplicate by default).

#include "arena/scheduler/scheduler.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "arena/scheduler/deal_seal.h"
#include "arena/scheduler/dial_in.h"
#include "arena/scheduler/duplicate_design.h"
#include "arena/scheduler/scheduler_internal.h"
#include "nlohmann/json.hpp"
#include "prometheus/gauge.h"
#include "referee/core/stats.h"
#include "referee/logging/log.h"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"

namespace tarock::arena {

namespace {

using scheduler_internal::FromJson;
using scheduler_internal::ToJson;
using scheduler_internal::json;

// All k-element subsets of [0, n), in lexicographic order.
void Combinations(int n, int k, std::vector<int>& cur, std::vector<std::vector<int>>* out) {
  if (static_cast<int>(cur.size()) == k) {
    out->push_back(cur);
    return;
  }
  for (int i = cur.empty() ? 0 : cur.back() + 1; i < n; ++i) {
    cur.push_back(i);
    Combinations(n, k, cur, out);
    cur.pop_back();
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Tournaments.

absl::StatusOr<v1::TournamentInfo> Scheduler::RunTournament(const v1::RunTournamentRequest& r) {
  if (absl::Status s = CheckAdmin(r.admin_token()); !s.ok()) return s;
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(r.variant());
  if (!info.ok()) return absl::InvalidArgumentError(absl::StrCat("unknown variant '", r.variant(), "'"));
  absl::StatusOr<Options> options = Registry::Global().CompleteOptions(
      r.variant(), Options(r.options().begin(), r.options().end()));
  if (!options.ok()) return absl::InvalidArgumentError(options.status().message());
  const int n = info->num_seats;
  const int hands = r.hands_per_match() ? r.hands_per_match() : 2 * n;
  if (hands < 0 || hands % n != 0)
    return absl::InvalidArgumentError(absl::StrCat("hands_per_match must be a multiple of ", n));
  const int deals = r.deals() ? r.deals() : 4;
  if (deals < 0 || deals > 1000) return absl::InvalidArgumentError("deals must be 1..1000");
  std::vector<BotRow> field;
  std::set<std::string> seen;
  for (const std::string& name : r.bots()) {
    if (!seen.insert(name).second)
      return absl::InvalidArgumentError(absl::StrCat("bot '", name, "' is named twice"));
    absl::StatusOr<BotRow> b = store_->FindBot(name);
    if (!b.ok()) return absl::InvalidArgumentError(b.status().message());
    if (b->retired) return absl::FailedPreconditionError(absl::StrCat("bot '", name, "' is retired"));
    if (std::find(b->variants.begin(), b->variants.end(), r.variant()) == b->variants.end())
      return absl::InvalidArgumentError(absl::StrCat("bot '", name, "' does not play ", r.variant()));
    field.push_back(*b);
  }
  std::vector<std::vector<int>> groups;  // indices into `field`, n each
  std::string format = "round-robin";
  if (r.format() == v1::RunTournamentRequest::GAUNTLET) {
    format = "gauntlet";
    absl::StatusOr<BotRow> challenger = store_->FindBot(r.challenger());
    if (!challenger.ok()) return absl::InvalidArgumentError("a gauntlet needs a registered challenger");
    int ci = -1;
    for (int i = 0; i < static_cast<int>(field.size()); ++i)
      if (field[i].id == challenger->id) ci = i;
    if (ci < 0) {
      field.push_back(*challenger);
      ci = static_cast<int>(field.size()) - 1;
    }
    std::vector<int> rest;
    for (int i = 0; i < static_cast<int>(field.size()); ++i)
      if (i != ci) rest.push_back(i);
    if (static_cast<int>(rest.size()) < n - 1)
      return absl::InvalidArgumentError(absl::StrCat("a gauntlet in ", r.variant(), " needs ",
                                                     n - 1, " bots besides the challenger"));
    std::vector<std::vector<int>> combos;
    std::vector<int> cur;
    Combinations(static_cast<int>(rest.size()), n - 1, cur, &combos);
    for (const auto& c : combos) {
      std::vector<int> g = {ci};
      for (int i : c) g.push_back(rest[i]);
      groups.push_back(g);
    }
  } else {
    if (static_cast<int>(field.size()) < n)
      return absl::InvalidArgumentError(
          absl::StrCat(r.variant(), " needs a field of at least ", n, " bots"));
    std::vector<int> cur;
    Combinations(static_cast<int>(field.size()), n, cur, &groups);
  }
  return ScheduleTournament(r, field, groups, format, 0);
}

absl::StatusOr<v1::TournamentInfo> Scheduler::ScheduleTournament(
    const v1::RunTournamentRequest& r, const std::vector<BotRow>& field,
    const std::vector<std::vector<int>>& groups, const std::string& format, int64_t event_id) {
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(r.variant());
  if (!info.ok()) return info.status();
  const int n = info->num_seats;
  const int hands = r.hands_per_match() ? r.hands_per_match() : 2 * n;
  const int deals = r.deals() ? r.deals() : 4;
  const bool duplicate = !r.no_duplicate();
  const int64_t total = static_cast<int64_t>(groups.size()) * deals * (duplicate ? n : 1);
  if (total > 20000)
    return absl::InvalidArgumentError(absl::StrCat("the tournament would have ", total,
                                                   " matches; the limit is 20000"));
  TournamentRow row;
  row.name = r.name().empty() ? absl::StrCat(format, " ", r.variant()) : r.name();
  row.variant = r.variant();
  row.format = absl::StrCat(format, duplicate ? " (duplicate)" : "");
  row.config = ToJson(r);
  absl::StatusOr<int64_t> tid = store_->InsertTournament(row);
  if (!tid.ok()) return tid.status();

  // Which groups play each deal in every seating (duplicate), and which may
  // not: a group with a hosted bot, whose tables all run on its one bot host,
  // never meets a deal twice (PlanTournamentDeals; docs/security.md, "One
  // kernel per deal"). Without duplicate every table has a deal of its own.
  std::vector<bool> hosted(field.size());
  for (size_t i = 0; i < field.size(); ++i) hosted[i] = field[i].endpoint == kHostedEndpoint;
  const TournamentDealPlan plan = PlanTournamentDeals(groups, hosted, n, kHostsPerHostedBot);
  // A deal: fresh random bits, or derived from the organiser's seed when
  // given (a rotated group's as before; the others' per seating, under a key
  // of their own so that they never meet a rotated group's).
  auto seal = [&](uint64_t index, bool per_seating) -> absl::StatusOr<SealedSeed> {
    if (r.seed() == 0) return NewSealedSeed();
    constexpr uint64_t kPerSeating = 0x5EA7ED5EA7ED0001ULL;
    return SealDerivedSeed(
        HandSeed(r.seed() ^ (static_cast<uint64_t>(*tid) << 32) ^ (per_seating ? kPerSeating : 0), index));
  };
  std::vector<Job> jobs;
  int64_t k = 0;
  auto add_table = [&](size_t g, int rot, const SealedSeed& sealed, bool shared) {
    Job job;
    job.match.id = absl::StrCat("T", *tid, "-", ++k);
    job.match.variant = r.variant();
    job.match.kind = "tournament";
    job.match.tournament_id = *tid;
    job.match.event_id = event_id;
    job.match.seed = sealed.seed;
    job.match.seed_salt = sealed.salt;
    job.match.seed_commitment = sealed.commitment;
    v1::MatchSpec& spec = job.spec;
    spec.set_match_id(job.match.id);
    spec.set_variant(r.variant());
    *spec.mutable_options() = r.options();
    for (int s = 0; s < n; ++s) {
      const BotRow& b = field[groups[g][(s + rot) % n]];
      v1::SeatSpec* seat = spec.add_seats();
      seat->set_name(b.name);
      seat->set_endpoint(b.endpoint);
      job.match.bot_ids.push_back(b.id);
    }
    spec.set_num_hands(hands);
    spec.set_seed(sealed.seed);
    spec.set_result_only(true);
    // Other tables play the same deal: no hand record to the bots (and the
    // deal is kept when the table is tried again: Scheduler::Redeal).
    spec.set_withhold_hand_records(shared);
    *spec.mutable_time_control() = r.time_control();
    *spec.mutable_fault_policy() = r.fault_policy();
    job.match.spec = ToJson(spec);
    jobs.push_back(std::move(job));
  };
  for (size_t g = 0; g < groups.size(); ++g) {
    const GroupDeals how = duplicate ? plan.deals[g] : GroupDeals::kRotated;
    // A bridged pair is made when its first group comes: its tables side by
    // side, so that a deal is not sealed for longer than it must.
    if (how == GroupDeals::kBridged && plan.partner[g] < static_cast<int>(g)) continue;
    for (int d = 0; d < deals; ++d) {
      const uint64_t index = g * 1000 + d;
      if (!duplicate || how == GroupDeals::kRotated) {
        // One sealed seed per duplicate set (every rotation of this deal).
        absl::StatusOr<SealedSeed> sealed = seal(index, false);
        if (!sealed.ok()) return sealed.status();
        for (int rot = 0; rot < (duplicate ? n : 1); ++rot)
          add_table(g, duplicate ? rot : d % n, *sealed, duplicate);
        continue;
      }
      for (int rot = 0; rot < n; ++rot) {
        absl::StatusOr<SealedSeed> sealed = seal(index * 8 + rot, true);
        if (!sealed.ok()) return sealed.status();
        add_table(g, rot, *sealed, how == GroupDeals::kBridged);
        if (how == GroupDeals::kBridged) add_table(plan.partner[g], rot, *sealed, true);
      }
    }
  }
  {
    std::vector<MatchRow> rows;
    rows.reserve(jobs.size());
    for (const Job& j : jobs) rows.push_back(j.match);
    if (absl::Status s = store_->InsertMatches(rows); !s.ok()) return s;
  }
  {
    absl::MutexLock lock(&mu_);
    if (Shared()) {
      refill_ = true;  // every arena claims them; the dispatcher here at once
    } else {
      for (Job& j : jobs) Enqueue(std::move(j));
    }
    metrics_->queue_depth.Set(PublicQueueDepth());
  }
  return GetTournament(*tid);
}

absl::Status Scheduler::AwaitBenchedBots(const Job& job) {
  const int64_t tid = job.match.tournament_id;
  for (size_t s = 0; s < job.match.bot_ids.size() && static_cast<int>(s) < job.spec.seats_size(); ++s) {
    const int64_t bot = job.match.bot_ids[s];
    // A dial-in or hosted bot that dropped out of an event's final does not
    // hold its tables up: the fallback plays its seat (PrepareDialIn).
    const bool dropped_out = job.match.event_id != 0 &&
                             ThroughGateway(job.spec.seats(static_cast<int>(s)).endpoint());
    if (dropped_out || !health_.Benched(bot)) {
      absl::MutexLock lock(&mu_);
      bench_wait_started_.erase({tid, bot});
      continue;
    }
    const std::string& name = job.spec.seats(static_cast<int>(s)).name();
    absl::Time deadline;
    {
      absl::MutexLock lock(&mu_);
      deadline = bench_wait_started_.try_emplace({tid, bot}, absl::Now()).first->second + dial_in_wait_;
    }
    BotHealthState h = health_.Of(bot);
    // A table of a sealed deal is not named, and its twins waiting for the
    // same bot say it once: which tables wait would tell which had ended
    // (docs/security.md, "Secret deals").
    const bool withheld = job.spec.withhold_hand_records();
    const std::string note =
        absl::StrCat(withheld ? "a table" : job.match.id, " waits for bot ", name, " (", h.state,
                     h.last_error.empty() ? "" : ": ", h.last_error.substr(0, 160), ") until ",
                     absl::FormatTime("%H:%M:%S UTC", deadline, absl::UTCTimeZone()));
    if (absl::Now() < deadline) {
      bool announce = true;
      const std::string group = withheld ? absl::StrCat("sealed ", name) : job.match.id;
      {
        absl::MutexLock lock(&mu_);
        for (const auto& [match, wait] : bench_waits_)
          if (wait.tournament == tid && wait.group == group) announce = false;
        bench_waits_[job.match.id] = {tid, note, group};
      }
      nlohmann::json waiting{{"tournament_id", tid}, {"bot", name}, {"note", note}};
      if (!withheld) waiting["match"] = job.match.id;
      if (announce) live_.Announce("waiting", waiting.dump());
      logging::Warning("scheduler", "tournament match waits for a benched bot",
                       {{"match", job.match.id}, {"tournament", tid}, {"bot", name},
                        {"state", h.state}, {"wait_s", absl::ToInt64Seconds(deadline - absl::Now())}});
      absl::Time next_probe = absl::InfinitePast();
      absl::MutexLock lock(&mu_);
      while (!stopping_ && absl::Now() < deadline && health_.Benched(bot)) {
        // While someone waits, the bot is probed every 2 s (not on its backoff).
        if (absl::Now() >= next_probe) {
          health_.Expedite(bot, absl::Now());
          next_probe = absl::Now() + absl::Seconds(2);
        }
        mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Milliseconds(200));
      }
      bench_waits_.erase(job.match.id);
    }
    if (cancel_.load()) return absl::CancelledError("the arena is stopping");
    if (health_.Benched(bot)) {
      h = health_.Of(bot);
      return absl::FailedPreconditionError(absl::StrCat(
          "not started: ", name, " is ", h.state, h.last_error.empty() ? "" : " (",
          h.last_error.substr(0, 200), h.last_error.empty() ? "" : ")", "; the tournament waited ",
          absl::ToInt64Seconds(dial_in_wait_), " s for it (--dial_in_wait_s)"));
    }
    absl::MutexLock lock(&mu_);
    bench_wait_started_.erase({tid, bot});
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::TournamentInfo> Scheduler::GetTournament(int64_t id) {
  absl::StatusOr<TournamentRow> t = store_->GetTournament(id);
  if (!t.ok()) return t.status();
  v1::TournamentInfo info;
  info.set_id(t->id);
  info.set_name(t->name);
  info.set_variant(t->variant);
  info.set_format(t->format);
  info.set_created_at(t->created_at);
  v1::RunTournamentRequest config = FromJson<v1::RunTournamentRequest>(t->config);
  absl::StatusOr<VariantInfo> variant = Registry::Global().Info(t->variant);
  const int n = variant.ok() ? variant->num_seats : 0;
  info.set_seats(n);
  info.set_deals(config.deals() ? config.deals() : 4);
  info.set_hands_per_match(config.hands_per_match() ? config.hands_per_match() : 2 * n);
  info.set_event(config.event());
  {
    absl::MutexLock lock(&mu_);
    std::set<std::string> said;  // the tables of a sealed deal share one note
    for (const auto& [match, wait] : bench_waits_)
      if (wait.tournament == id && said.insert(wait.group).second) info.add_waiting(wait.note);
  }
  struct Tally {
    int64_t total = 0;
    int64_t hand_total = 0;
    std::vector<double> per_hand;
    int faults = 0;
    double rank_sum = 0;
    int matches = 0;
  };
  std::map<std::string, Tally> tally;
  std::vector<MatchRow> matches = store_->TournamentMatches(id);
  info.set_matches_total(static_cast<int>(matches.size()));
  int done = 0, failed = 0;
  // A table's result counts once its deal is public (DealPublic): its twins
  // of a duplicate set still playing the deal must not read how it went, nor
  // when it ended: until then it counts as running, not done or failed.
  const std::vector<bool> shown = DealsPublic(matches);
  for (size_t i = 0; i < matches.size(); ++i) {
    const MatchRow& m = matches[i];
    if (!shown[i]) continue;
    if (m.status == "failed") ++failed;
    if (m.status != "done") continue;
    ++done;
    std::vector<SeatRow> seats = store_->SeatsOf(m.id);
    // Per-hand scores as stored with the seats; results stored before schema
    // version 2 have them only in the record.
    json rec;
    if (std::any_of(seats.begin(), seats.end(), [](const SeatRow& s) { return !s.hand_scores; })) {
      absl::StatusOr<std::string> record = store_->RecordOf(m.id);
      if (record.ok()) rec = json::parse(*record, nullptr, false);
    }
    for (const SeatRow& s : seats) {
      Tally& x = tally[s.bot];
      x.total += s.total;
      x.faults += s.faults;
      x.rank_sum += s.rank;
      ++x.matches;
      if (s.hand_scores) {
        x.per_hand.insert(x.per_hand.end(), s.hand_scores->begin(), s.hand_scores->end());
        for (int64_t v : *s.hand_scores) x.hand_total += v;
      } else if (rec.is_object() && rec.contains("deals")) {
        for (const json& deal : rec["deals"]) {
          if ((deal.value("redeal", false) && !deal.value("counts_as_hand", false)) ||
              !deal.contains("scores"))
            continue;
          x.per_hand.push_back(deal["scores"][s.seat].get<double>());
          x.hand_total += deal["scores"][s.seat].get<int64_t>();
        }
      }
    }
  }
  // How the deals were shared: the tables of one seed play one deal.
  std::map<int64_t, bool> hosted_bot;  // bot id -> hosted (its endpoint now)
  auto hosted = [&](int64_t bot) {
    auto it = hosted_bot.find(bot);
    if (it == hosted_bot.end()) {
      absl::StatusOr<BotRow> b = store_->BotById(bot);
      it = hosted_bot.emplace(bot, b.ok() && b->endpoint == kHostedEndpoint).first;
    }
    return it->second;
  };
  {
    std::map<uint64_t, std::vector<const MatchRow*>> by_seed;
    for (const MatchRow& m : matches) by_seed[m.seed].push_back(&m);
    int rotated = 0, bridged = 0, single = 0;
    std::set<int64_t> kept_apart;  // hosted bots at tables that are not rotated
    for (const auto& entry : by_seed) {
      // Not a structured binding: clang 14 cannot capture one in a lambda.
      const std::vector<const MatchRow*>& tables = entry.second;
      auto bots_of = [](const MatchRow* m) {
        return std::set<int64_t>(m->bot_ids.begin(), m->bot_ids.end());
      };
      const bool same_bots = std::all_of(tables.begin(), tables.end(), [&](const MatchRow* m) {
        return bots_of(m) == bots_of(tables.front());
      });
      if (tables.size() > 1 && same_bots) {
        ++rotated;
        continue;
      }
      ++(tables.size() == 1 ? single : bridged);
      for (const MatchRow* m : tables)
        for (int64_t b : m->bot_ids)
          if (hosted(b)) kept_apart.insert(b);
    }
    info.set_rotated_deals(rotated);
    info.set_bridged_deals(bridged);
    info.set_single_table_deals(single);
    if (!config.no_duplicate() && (bridged > 0 || single > 0)) {
      std::vector<std::string> names;
      for (int64_t b : kept_apart) {
        absl::StatusOr<BotRow> row = store_->BotById(b);
        if (row.ok()) names.push_back(row->name);
      }
      std::sort(names.begin(), names.end());
      std::string who = absl::StrJoin(names.begin(), names.begin() + std::min<size_t>(names.size(), 8), ", ");
      if (names.size() > 8) absl::StrAppend(&who, " and ", names.size() - 8, " more");
      info.set_deals_note(absl::StrCat(
          "Groups with a hosted bot (", who.empty() ? "none any more" : who,
          ") never play a deal in every seating: a hosted bot's tables all run on its one bot "
          "host, and no two runs of one bot that may hold cards of the same deal may share a "
          "kernel, at once or one after the other (docs/security.md, \"One kernel per deal\"). ",
          bridged, bridged == 1 ? " deal is" : " deals are",
          " played as a bridge set: one seating of two such groups with no bot in common, each "
          "bot at one of the two tables; ",
          single, single == 1 ? " deal is" : " deals are",
          " played at one table only (a group left without such a partner: nothing of the "
          "cards' luck cancels there); ",
          rotated, rotated == 1 ? " deal is" : " deals are",
          " played in every seating of its group, as duplicate does."));
    }
  }
  info.set_matches_done(done);
  info.set_matches_failed(failed);
  info.set_finished(done + failed == static_cast<int>(matches.size()));
  // The organiser's seed derives every deal: shown once every deal is public.
  if (info.finished() && config.seed() != 0) info.set_seed(config.seed());
  std::vector<v1::TournamentStanding> standings;
  for (const auto& [bot, x] : tally) {
    v1::TournamentStanding s;
    s.set_bot(bot);
    s.set_total(x.total);
    s.set_hand_total(x.hand_total);
    s.set_settlement(x.total - x.hand_total);
    s.set_hands(static_cast<int>(x.per_hand.size()));
    MeanCI ci = ComputeMeanCI(x.per_hand);
    s.set_mean_per_hand(ci.mean);
    s.set_ci95(std::isfinite(ci.half_width) ? ci.half_width : -1);
    s.set_faults(x.faults);
    s.set_mean_rank(x.matches ? x.rank_sum / x.matches : 0);
    // A listening or dial-in bot runs on its own machine; a hosted bot runs
    // in a fresh sandbox per match on a bot host.
    absl::StatusOr<BotRow> row = store_->FindBot(bot);
    s.set_runs_elsewhere(!row.ok() || row->endpoint != kHostedEndpoint);
    standings.push_back(s);
  }
  std::sort(standings.begin(), standings.end(), [](const auto& a, const auto& b) {
    if (a.mean_per_hand() != b.mean_per_hand()) return a.mean_per_hand() > b.mean_per_hand();
    return a.bot() < b.bot();
  });
  for (auto& s : standings) *info.add_standings() = s;
  return info;
}

}  // namespace tarock::arena
