// Scheduler: rating ladders and their matchmaking.

#include "arena/scheduler/scheduler.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "arena/scheduler/deal_seal.h"
#include "arena/scheduler/scheduler_internal.h"
#include "arena/store/rating_pool.h"
#include "prometheus/gauge.h"
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
  ladders_[key] = ladder;
  refill_ = true;
  v1::LadderInfo out;
  out.set_id(*id);
  *out.mutable_config() = config;
  out.set_running(true);
  return out;
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
    for (int64_t b : j->match.bot_ids) --busy_by_bot_[b];
    --queued_by_ladder_[ladder_id];
    j = queue_.erase(j);
  }
  metrics_->queue_depth.Set(queue_.size());
  store_->DeletePendingMatches(spares).IgnoreError();  // left over, they would run after a restart
  v1::LadderInfo out;
  out.set_id(it->second.id);
  *out.mutable_config() = it->second.config;
  out.set_running(false);
  out.set_matches_done(store_->CountLadderMatches(it->second.id, "done"));
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
    info->set_matches_done(store_->CountLadderMatches(l.id, "done"));
  }
  return out;
}

std::vector<Scheduler::LadderCandidate> Scheduler::LadderCandidates(const std::string& variant,
                                                                    int64_t event_id) {
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
    std::optional<RatingRow> r = store_->GetRating(b.id, pool);
    c.rating = r ? Rating{r->mu, r->sigma} : model_.Initial();
    c.matches = r ? r->matches : 0;
    out.push_back(c);
  }
  return out;
}

absl::StatusOr<Scheduler::Job> Scheduler::MakeLadderJob(Ladder& ladder,
                                                        std::vector<LadderCandidate> candidates) {
  const v1::LadderConfig& config = ladder.config;
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(config.variant());
  if (!info.ok()) return info.status();
  const int n = info->num_seats;
  if (candidates.empty() || (!config.allow_self_play() && static_cast<int>(candidates.size()) < n))
    return absl::FailedPreconditionError(absl::StrCat(
        "the ", config.variant(), " ladder needs ", n, " bots, ", candidates.size(), " play it"));
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
  for (int pass = 0; static_cast<int>(chosen.size()) < n && pass < 3; ++pass) {
    // pass 0: distinct bots, owners apart (if asked); 1: distinct bots; 2: self-play.
    if (pass == 2 && !config.allow_self_play()) break;
    if (pass == 0 && !config.separate_owners()) continue;
    while (static_cast<int>(chosen.size()) < n) {
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
  if (static_cast<int>(chosen.size()) < n)
    return absl::FailedPreconditionError("not enough bots for a ladder match");
  // A secret deal (deal_seal.h): never a function of the public match id.
  absl::StatusOr<SealedSeed> sealed = NewSealedSeed();
  if (!sealed.ok()) return sealed.status();
  absl::StatusOr<SealedSeed> shuffle = NewSealedSeed();
  if (!shuffle.ok()) return shuffle.status();
  const int64_t number = ++ladder.created;
  const uint64_t seed = sealed->seed;
  // Shuffle the seats, so no bot keeps a position (from other random bits
  // than the deal's: the seating is public).
  Rng rng(shuffle->seed);
  for (int i = n - 1; i > 0; --i) std::swap(chosen[i], chosen[rng.Below(i + 1)]);

  Job job;
  job.match.id = absl::StrCat("L", ladder.id, "-", number);
  job.match.variant = config.variant();
  job.match.kind = "ladder";
  job.match.ladder_id = ladder.id;
  job.match.event_id = ladder.event_id;
  job.match.seed = seed;
  job.match.seed_salt = sealed->salt;
  job.match.seed_commitment = sealed->commitment;
  v1::MatchSpec& spec = job.spec;
  spec.set_match_id(job.match.id);
  spec.set_variant(config.variant());
  *spec.mutable_options() = config.options();
  for (int i : chosen) {
    v1::SeatSpec* seat = spec.add_seats();
    seat->set_name(candidates[i].bot.name);
    seat->set_endpoint(candidates[i].bot.endpoint);
    job.match.bot_ids.push_back(candidates[i].bot.id);
  }
  spec.set_num_hands(config.hands_per_match());
  spec.set_seed(seed);
  spec.set_result_only(true);  // the arena needs the result, not the progress
  *spec.mutable_time_control() = config.time_control();
  *spec.mutable_fault_policy() = config.fault_policy();
  // A broken bot holds a ladder slot briefly (bot_health.h benches it after).
  if (options_.ladder_connect_timeout > absl::ZeroDuration())
    spec.set_connect_timeout_ms(static_cast<int32_t>(absl::ToInt64Milliseconds(options_.ladder_connect_timeout)));
  if (spec.fault_policy().max_timeouts_in_row() == 0)
    spec.mutable_fault_policy()->set_max_timeouts_in_row(options_.ladder_timeouts_in_row);
  job.match.spec = ToJson(spec);
  return job;
}

}  // namespace tarock::arena
