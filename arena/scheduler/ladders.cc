// Scheduler: rating ladders and their matchmaking.

#include "arena/scheduler/scheduler.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "arena/scheduler/deal_seal.h"
#include "arena/scheduler/scheduler_internal.h"
#include "arena/scheduler/dial_in.h"
#include "arena/scheduler/duplicate_design.h"
#include "arena/store/rating_pool.h"
#include "prometheus/gauge.h"
#include "referee/logging/log.h"
#include "referee/engine/random.h"
#include "referee/engine/registry.h"

namespace tarock::arena {

namespace {

using scheduler_internal::ToJson;
using scheduler_internal::FromJson;

}  // namespace

// ---------------------------------------------------------------------------
// Ladders.

absl::StatusOr<v1::LadderInfo> Scheduler::StartLadder(const v1::StartLadderRequest& request) {
  if (absl::Status s = CheckAdmin(request.admin_token()); !s.ok()) return s;
  absl::StatusOr<int64_t> event_id = EventIdOf(request.config().event());
  if (!event_id.ok()) return event_id.status();
  absl::MutexLock lock(&mu_);
  return StartLadderLocked(request.config(), *event_id, 1);
}

absl::StatusOr<v1::LadderInfo> Scheduler::StartLadderLocked(v1::LadderConfig config,
                                                            int64_t event_id, int weight) {
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(config.variant());
  if (!info.ok()) return absl::InvalidArgumentError(absl::StrCat("unknown variant '", config.variant(), "'"));
  absl::StatusOr<Options> options = Registry::Global().CompleteOptions(
      config.variant(), Options(config.options().begin(), config.options().end()));
  if (!options.ok()) return absl::InvalidArgumentError(options.status().message());
  if (config.hands_per_match() == 0) config.set_hands_per_match(2 * info->num_seats);
  if (config.hands_per_match() < 0 || config.hands_per_match() % info->num_seats != 0)
    return absl::InvalidArgumentError(absl::StrCat("hands_per_match must be a positive multiple of ",
                                                   info->num_seats));
  if (config.max_matches() < 0) return absl::InvalidArgumentError("max_matches must not be negative");
  // The format and rating model (docs/ratings.md): duplicate sets rated on
  // margins unless asked otherwise; stored by name, so a ladder keeps its
  // model whatever the default becomes.
  // The open ladder with too few bots for a duplicate set plays matches rated
  // on places until its field fills a set (OpenLadderTick), as an event's does.
  std::string note;
  if (event_id == 0 && config.format().empty() && config.rating_model().empty()) {
    std::vector<BotRow> field;
    for (BotRow& b : store_->ListBots(false))
      if (b.event_id == 0) field.push_back(std::move(b));
    const v1::EventLadder plan = PlanEventLadder(field, config.variant());
    note = plan.note();
    if (plan.format() == "match") {
      config.set_format("match");
      config.set_rating_model("place");
      config.set_until_set(true);
    }
  }
  if (config.format().empty()) config.set_format("duplicate");
  absl::StatusOr<LadderFormat> format = ParseLadderFormat(config.format());
  if (!format.ok()) return format.status();
  if (config.rating_model().empty())
    config.set_rating_model(*format == LadderFormat::kDuplicate ? "margin" : "place");
  absl::StatusOr<RatingModelKind> model = ParseRatingModel(config.rating_model());
  if (!model.ok()) return model.status();
  if (*model == RatingModelKind::kMargin && *format != LadderFormat::kDuplicate)
    return absl::InvalidArgumentError(
        "rating model 'margin' needs format 'duplicate' (margins compare the tables of a set)");
  if (*format == LadderFormat::kDuplicate && config.allow_self_play())
    return absl::InvalidArgumentError(
        "self-play needs format 'match' (a duplicate set seats each bot once per deal)");
  if (event_id == 0) config.clear_event();
  const std::string key = RatingPool(config.variant(), event_id);
  if (ladders_.count(key))
    return absl::AlreadyExistsError(absl::StrCat("a ladder for ", config.variant(),
                                                 event_id ? " in event " + config.event() : "",
                                                 " is running"));
  LadderRow row;
  row.variant = config.variant();
  row.config = ToJson(config);
  row.running = true;
  absl::StatusOr<int64_t> id = store_->InsertLadder(row);
  if (!id.ok()) return id.status();
  Ladder ladder;
  ladder.id = *id;
  ladder.event_id = event_id;
  ladder.weight = std::max(1, weight);
  ladder.config = config;
  ladder.format = *format;
  ladder.model = *model;
  ladders_[key] = ladder;
  {
    absl::MutexLock models(&models_mu_);
    ladder_models_[*id] = *model;
  }
  refill_ = true;
  v1::LadderInfo out;
  out.set_id(*id);
  *out.mutable_config() = config;
  out.set_running(true);
  out.set_note(note);
  return out;
}

void Scheduler::OpenLadderTick() {
  std::vector<BotRow> field;
  for (BotRow& b : store_->ListBots(false))
    if (b.event_id == 0) field.push_back(std::move(b));
  absl::MutexLock lock(&mu_);
  std::vector<v1::LadderConfig> grown;
  for (const auto& [key, ladder] : ladders_)
    if (ladder.event_id == 0 && ladder.config.until_set() &&
        PlanEventLadder(field, ladder.config.variant()).format() == "duplicate")
      grown.push_back(ladder.config);
  for (v1::LadderConfig c : grown) {
    // Both histories are kept; the new ladder rates duplicate sets on margins.
    StopLadderLocked(RatingPool(c.variant(), 0)).IgnoreError();
    c.clear_format();
    c.clear_rating_model();
    c.clear_until_set();
    StartLadderLocked(c, 0, 1).IgnoreError();
  }
}

absl::StatusOr<v1::LadderInfo> Scheduler::StopLadder(const v1::StopLadderRequest& request) {
  if (absl::Status s = CheckAdmin(request.admin_token()); !s.ok()) return s;
  absl::StatusOr<int64_t> event_id = EventIdOf(request.event());
  if (!event_id.ok()) return event_id.status();
  absl::MutexLock lock(&mu_);
  return StopLadderLocked(RatingPool(request.variant(), *event_id));
}

absl::StatusOr<v1::LadderInfo> Scheduler::StopLadderLocked(const std::string& key) {
  auto it = ladders_.find(key);
  if (it == ladders_.end())
    return absl::NotFoundError(absl::StrCat("no ladder is running for '", SplitRatingPool(key).first,
                                            "'"));
  if (absl::Status s = store_->SetLadderRunning(it->second.id, false); !s.ok()) return s;
  // Its matches made ahead and not yet started go: a stopped ladder plays
  // only what is already running.
  const int64_t ladder_id = it->second.id;
  std::vector<std::string> spares;
  if (Shared()) {
    // Made ahead by whichever arena holds the dispatcher lease, pending in the
    // database; those claimed already (queued here or elsewhere) run.
    MatchFilter pending;
    pending.ladder_id = ladder_id;
    pending.status = "pending";
    for (const MatchRow& m : store_->ListMatchesPage(pending, 0, 100000, nullptr))
      spares.push_back(m.id);
  }
  for (auto j = queue_.begin(); j != queue_.end() && !Shared();) {
    if (j->match.ladder_id != ladder_id) {
      ++j;
      continue;
    }
    spares.push_back(j->match.id);
    resumed_.erase(j->match.id);
    for (int64_t b : j->match.bot_ids) --busy_by_bot_[b];
    --queued_by_ladder_[ladder_id];
    j = queue_.erase(j);
  }
  metrics_->queue_depth.Set(PublicQueueDepth());
  store_->DeletePendingMatches(spares).IgnoreError();  // left over, they would run after a restart
  v1::LadderInfo out;
  out.set_id(it->second.id);
  *out.mutable_config() = it->second.config;
  out.set_running(false);
  out.set_matches_done(store_->CountPublicFinished("done", it->second.id));
  ladders_.erase(it);
  return out;
}

v1::ListLaddersResponse Scheduler::ListLadders() {
  v1::ListLaddersResponse out;
  for (const LadderRow& l : store_->ListLadders()) {
    v1::LadderInfo* info = out.add_ladders();
    info->set_id(l.id);
    *info->mutable_config() = FromJson<v1::LadderConfig>(l.config);
    info->set_running(l.running);
    // As the public sees them: a table whose deal other tables still play
    // counts once that deal is public (docs/security.md, "Secret deals").
    info->set_matches_done(store_->CountPublicFinished("done", l.id));
  }
  return out;
}

std::vector<Scheduler::LadderCandidate> Scheduler::LadderCandidates(const std::string& variant,
                                                                    int64_t event_id,
                                                                    RatingModelKind model) {
  std::vector<LadderCandidate> out;
  const std::string pool = RatingPool(variant, event_id);
  // The open event: the bots registered directly; another: its field.
  std::vector<BotRow> bots;
  if (event_id == 0) {
    for (BotRow& b : store_->ListBots(false))
      if (b.event_id == 0) bots.push_back(std::move(b));
  } else {
    bots = EventField(event_id);
  }
  for (const BotRow& b : bots) {
    if (std::find(b.variants.begin(), b.variants.end(), variant) == b.variants.end()) continue;
    if (ThroughGateway(b.endpoint) && !(dial_in_ && dial_in_->Online(b.id))) continue;
    if (health_.Benched(b.id)) continue;  // unreachable or unresponsive: bot_health.h
    LadderCandidate c;
    c.bot = b;
    if (model == RatingModelKind::kMargin) {
      const MarginRating initial = margin_.Initial();
      c.rating = Rating{initial.mu, initial.sigma};
      for (const MarginRatingRow& r : store_->MarginRatingsOfBot(b.id))
        if (r.pool == pool) {
          c.rating = Rating{r.mu, r.sigma};
          c.matches = r.sets;
        }
    } else {
      std::optional<RatingRow> r = store_->GetRating(b.id, pool);
      c.rating = r ? Rating{r->mu, r->sigma} : model_.Initial();
      c.matches = r ? r->matches : 0;
    }
    // Hosted (docs/hosting.md): registered --hosted with uploaded versions,
    // each seat a fresh sandboxed process. Not a dial-in bot with versions:
    // its owner's own process may play it and remember a deal across tables.
    c.hosted = b.endpoint == kHostedEndpoint && !store_->ListVersions(b.id).empty();
    out.push_back(c);
  }
  return out;
}

absl::StatusOr<std::vector<Scheduler::Job>> Scheduler::MakeLadderJobs(
    Ladder& ladder, std::vector<LadderCandidate> candidates) {
  const v1::LadderConfig& config = ladder.config;
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(config.variant());
  if (!info.ok()) return info.status();
  const int n = info->num_seats;
  if (config.max_matches() > 0 && ladder.created >= config.max_matches())
    return absl::FailedPreconditionError("the ladder has made its max_matches");
  const bool duplicate = ladder.format == LadderFormat::kDuplicate;
  // A duplicate set: rotated only when every bot is hosted fresh per match
  // and each bot's tables can run on machines of their own; else bridge (2n
  // bots, each at one table: no bot sees a deal twice, no kernel holds two
  // processes of one bot with cards of one deal). ChooseSetDesign.
  const bool every_bot_hosted =
      !candidates.empty() && std::all_of(candidates.begin(), candidates.end(),
                                         [](const LadderCandidate& c) { return c.hosted; });
  const SetDesign design = ChooseSetDesign(every_bot_hosted, kHostsPerHostedBot, n);
  const int want = duplicate ? BotsPerSet(design, n) : n;
  if (candidates.empty() ||
      (!config.allow_self_play() && static_cast<int>(candidates.size()) < want))
    return absl::FailedPreconditionError(absl::StrCat(
        "the ", config.variant(), " ladder needs ", want, " bots",
        duplicate ? absl::StrCat(" (a ", SetDesignName(design), " duplicate set)") : "", ", ",
        candidates.size(), " play it"));
  // The anchor: least known, least busy.
  std::sort(candidates.begin(), candidates.end(), [](const LadderCandidate& a,
                                                     const LadderCandidate& b) {
    if (a.busy != b.busy) return a.busy < b.busy;
    if (a.rating.sigma != b.rating.sigma) return a.rating.sigma > b.rating.sigma;
    if (a.matches != b.matches) return a.matches < b.matches;
    return a.bot.name < b.bot.name;
  });
  std::vector<int> chosen = {0};
  auto owner_taken = [&](const std::string& owner) {
    for (int i : chosen)
      if (candidates[i].bot.owner == owner) return true;
    return false;
  };
  const Rating anchor = candidates[0].rating;
  // Fill: most information first (uncertain, close to the anchor, not busy).
  // The owners of a set's bots are kept apart only as far as the field
  // allows: a bridge set of 2n bots needs more owners than one table.
  for (int pass = 0; static_cast<int>(chosen.size()) < want && pass < 3; ++pass) {
    // pass 0: distinct bots, owners apart (if asked); 1: distinct bots; 2: self-play.
    if (pass == 2 && !config.allow_self_play()) break;
    if (pass == 0 && !config.separate_owners()) continue;
    while (static_cast<int>(chosen.size()) < want) {
      int best = -1;
      double best_score = -1e300;
      for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
        const bool taken = std::find(chosen.begin(), chosen.end(), i) != chosen.end();
        if (taken && pass < 2) continue;
        if (pass == 0 && owner_taken(candidates[i].bot.owner)) continue;
        const LadderCandidate& c = candidates[i];
        double score = c.rating.sigma - 0.25 * std::fabs(c.rating.mu - anchor.mu) -
                       2.0 * c.busy - 0.01 * c.matches;
        if (score > best_score) {
          best_score = score;
          best = i;
        }
      }
      if (best < 0) break;
      chosen.push_back(best);
    }
  }
  if (static_cast<int>(chosen.size()) < want)
    return absl::FailedPreconditionError("not enough bots for a ladder match");
  // A secret deal (deal_seal.h): never a function of the public match id;
  // one seed (one commitment) for every table of a set.
  absl::StatusOr<SealedSeed> sealed = NewSealedSeed();
  if (!sealed.ok()) return sealed.status();
  absl::StatusOr<SealedSeed> shuffle = NewSealedSeed();
  if (!shuffle.ok()) return shuffle.status();
  const uint64_t seed = sealed->seed;
  // Shuffle the seats, so no bot keeps a position (from other random bits
  // than the deal's: the seating is public). In a bridge set the order also
  // says who is compared with whom: shuffled per set, the comparisons
  // connect the whole field (duplicate_design.h).
  Rng rng(shuffle->seed);
  for (int i = static_cast<int>(chosen.size()) - 1; i > 0; --i)
    std::swap(chosen[i], chosen[rng.Below(i + 1)]);
  std::vector<std::vector<int>> tables;  // indices into `chosen`, per table and seat
  if (!duplicate) {
    std::vector<int> one(n);
    for (int s = 0; s < n; ++s) one[s] = s;
    tables.push_back(one);
  } else {
    absl::StatusOr<DuplicateDesign> d = design == SetDesign::kRotated
                                            ? RotatedDesign(want, n)
                                            : BridgeDesign(want, n, rng.Next() | 1);
    if (!d.ok()) return d.status();
    tables = d->tables;
  }
  std::vector<Job> out;
  for (const std::vector<int>& table : tables) {
    const int64_t number = ++ladder.created;
    Job job;
    job.match.id = absl::StrCat("L", ladder.id, "-", number);
    job.match.variant = config.variant();
    job.match.kind = "ladder";
    job.match.ladder_id = ladder.id;
    job.match.event_id = ladder.event_id;
    job.match.seed = seed;
    job.match.seed_salt = sealed->salt;
    job.match.seed_commitment = sealed->commitment;
    job.match.set_tables = duplicate ? static_cast<int>(tables.size()) : 0;
    v1::MatchSpec& spec = job.spec;
    spec.set_match_id(job.match.id);
    spec.set_variant(config.variant());
    *spec.mutable_options() = config.options();
    for (int k : table) {
      const LadderCandidate& c = candidates[chosen[k]];
      v1::SeatSpec* seat = spec.add_seats();
      seat->set_name(c.bot.name);
      seat->set_endpoint(c.bot.endpoint);
      job.match.bot_ids.push_back(c.bot.id);
    }
    spec.set_num_hands(config.hands_per_match());
    spec.set_seed(seed);
    spec.set_result_only(true);  // the arena needs the result, not the progress
    // Other tables play the same deals: no hand record to the bots, nothing
    // live, the record once every table has finished (DealPublic).
    spec.set_withhold_hand_records(duplicate);
    *spec.mutable_time_control() = config.time_control();
    *spec.mutable_fault_policy() = config.fault_policy();
    // A broken bot holds a ladder slot briefly (bot_health.h benches it after).
    if (options_.ladder_connect_timeout > absl::ZeroDuration())
      spec.set_connect_timeout_ms(
          static_cast<int32_t>(absl::ToInt64Milliseconds(options_.ladder_connect_timeout)));
    if (spec.fault_policy().max_timeouts_in_row() == 0)
      spec.mutable_fault_policy()->set_max_timeouts_in_row(options_.ladder_timeouts_in_row);
    job.match.spec = ToJson(spec);
    out.push_back(std::move(job));
  }
  return out;
}

absl::StatusOr<std::pair<LadderFormat, RatingModelKind>> LadderModes(
    const v1::LadderConfig& config) {
  absl::StatusOr<LadderFormat> format =
      ParseLadderFormat(config.format().empty() ? "match" : config.format());
  if (!format.ok()) return format.status();
  absl::StatusOr<RatingModelKind> model =
      ParseRatingModel(config.rating_model().empty() ? "place" : config.rating_model());
  if (!model.ok()) return model.status();
  return std::make_pair(*format, *model);
}

bool Scheduler::PlaceRated(const MatchRow& match) {
  if (match.kind == "play" || match.kind == "test") return false;
  if (match.kind != "ladder" || match.ladder_id == 0) return true;
  {
    absl::MutexLock lock(&models_mu_);
    auto it = ladder_models_.find(match.ladder_id);
    if (it != ladder_models_.end()) return it->second == RatingModelKind::kPlace;
  }
  // Not cached (a ladder another arena started): read, without models_mu_
  // held (never call this with the store's lock held, e.g. from a RateFn).
  std::map<int64_t, RatingModelKind> read;
  for (const LadderRow& l : store_->ListLadders()) {
    absl::StatusOr<std::pair<LadderFormat, RatingModelKind>> modes =
        LadderModes(FromJson<v1::LadderConfig>(l.config));
    read[l.id] = modes.ok() ? modes->second : RatingModelKind::kPlace;
  }
  absl::MutexLock lock(&models_mu_);
  for (const auto& [id, model] : read) ladder_models_[id] = model;
  auto it = ladder_models_.find(match.ladder_id);
  return it == ladder_models_.end() || it->second == RatingModelKind::kPlace;
}

void Scheduler::BookSetOf(const MatchRow& match) {
  if (match.set_tables <= 0 || match.ladder_id == 0 || PlaceRated(match)) return;
  const MarginRatingModel& model = margin_;
  absl::StatusOr<bool> booked = store_->BookSet(
      match.ladder_id, match.seed, RatingPool(match.variant, match.event_id),
      [&model](const std::vector<SetTableRow>& tables,
               const std::map<int64_t, MarginRatingRow>& current, const MarginNoiseRow& noise) {
        return RateSet(model, tables, current, noise);
      });
  if (booked.ok() && *booked) {
    // The gauges of the pool's margin ratings (one query a set; the pool's
    // bots only, so the series stay bots x pools, like the place ratings').
    const std::string pool = RatingPool(match.variant, match.event_id);
    for (const MarginLeaderRow& r : store_->MarginLeaderboardRows(pool))
      SetMarginMetrics(r.name, r.rating);
  }
  if (!booked.ok() && !absl::IsAborted(booked.status()))
    logging::Error("scheduler", "cannot book a duplicate set",
                   {{"match", match.id}, {"ladder", match.ladder_id},
                    {"error", booked.status().ToString()}});
}

absl::StatusOr<Store::SetRating> RateSet(const MarginRatingModel& model,
                                         const std::vector<SetTableRow>& tables,
                                         const std::map<int64_t, MarginRatingRow>& current,
                                         const MarginNoiseRow& noise) {
  Store::SetRating out;
  out.noise = noise;
  std::vector<std::vector<int64_t>> table_bots;
  std::vector<std::vector<std::vector<int>>> hand_scores;
  std::map<int64_t, int> faults;
  int num_hands = 0;
  std::string variant;
  for (const SetTableRow& t : tables) {
    if (t.match.status != "done" || t.seats.empty()) continue;  // failed: no scores
    variant = t.match.variant;
    num_hands = std::max(num_hands,
                         FromJson<v1::MatchSpec>(t.match.spec).num_hands());
    std::vector<int64_t> bots;
    std::vector<std::vector<int>> scores;
    for (const SeatRow& seat : t.seats) {
      bots.push_back(seat.bot_id);
      std::vector<int> row;
      if (seat.hand_scores)
        for (int64_t v : *seat.hand_scores) row.push_back(static_cast<int>(v));
      scores.push_back(std::move(row));
      faults[seat.bot_id] += seat.faults;
    }
    table_bots.push_back(std::move(bots));
    hand_scores.push_back(std::move(scores));
  }
  if (table_bots.empty()) return out;  // nothing played: nothing to rate
  // The seat that sits a deal out (slovenian-5p's dealer, hand h dealt by
  // seat h mod n) has no score there.
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(variant);
  const int n = info.ok() ? info->num_seats : 0;
  const bool dealer_sits_out = info.ok() && info->num_seats * info->hand_size + info->talon_size > 54;
  absl::StatusOr<DuplicateSet> set = SetFromTables(
      table_bots, hand_scores, num_hands,
      [&](int hand, int seat) { return dealer_sits_out && n > 0 && seat == hand % n; });
  if (!set.ok()) return set.status();
  std::map<int64_t, MarginRating> before;
  for (const auto& [bot, r] : current) before[bot] = MarginRating{r.mu, r.sigma, r.deals};
  absl::StatusOr<MarginSetUpdate> update =
      model.Update(*set, before, MarginNoise{noise.sum_sq, noise.residuals});
  if (!update.ok()) return update.status();
  out.noise = MarginNoiseRow{update->noise.sum_sq, update->noise.residuals};
  for (const auto& [bot, boards] : update->set_boards) {
    if (boards <= 0) continue;
    const MarginRating& r = update->ratings.at(bot);
    MarginRatingRow row;
    auto it = current.find(bot);
    if (it != current.end()) row = it->second;
    row.bot_id = bot;
    row.mu = r.mu;
    row.sigma = r.sigma;
    row.deals = r.deals;
    row.sets += 1;
    row.faults += faults[bot];
    out.ratings.push_back(row);
    out.set_margin[bot] = update->set_margin.at(bot);
  }
  return out;
}

}  // namespace tarock::arena
