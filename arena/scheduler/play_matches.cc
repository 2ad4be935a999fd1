// Scheduler: play matches, one seat relayed to a person in the browser.

#include "arena/scheduler/scheduler.h"

#include <google/protobuf/util/json_util.h>
#include <pthread.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "arena/scheduler/deal_seal.h"
#include "arena/scheduler/scheduler_internal.h"
#include "prometheus/gauge.h"
#include "referee/engine/registry.h"

namespace tarock::arena {

namespace {

using scheduler_internal::ToJson;

}  // namespace

// ---------------------------------------------------------------------------
// Play matches: one seat relayed to a person (arena/play).

absl::StatusOr<v1::ArenaMatch> Scheduler::StartPlayMatch(const PlayMatchRequest& r) {
  if (r.match_id.empty() || r.match_id.size() > 64 || !ValidBotName(r.match_id))
    return absl::InvalidArgumentError("a play match id is 1-64 of [A-Za-z0-9._-]");
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(r.variant);
  if (!info.ok()) return absl::InvalidArgumentError(absl::StrCat("unknown variant '", r.variant, "'"));
  absl::StatusOr<Options> options =
      Registry::Global().CompleteOptions(r.variant, Options(r.options.begin(), r.options.end()));
  if (!options.ok()) return absl::InvalidArgumentError(options.status().message());
  const int n = info->num_seats;
  if (static_cast<int>(r.seats.size()) != n)
    return absl::InvalidArgumentError(absl::StrCat(r.variant, " has ", n, " seats"));
  if (std::count(r.seats.begin(), r.seats.end(), "") != 1)
    return absl::InvalidArgumentError("exactly one seat is the person's");
  if (r.relay_endpoint.find(':') == std::string::npos)
    return absl::InvalidArgumentError("the relay endpoint must be HOST:PORT");
  const int hands = r.num_hands ? r.num_hands : n;
  if (hands < 0 || hands % n != 0 || hands > 100 * n)
    return absl::InvalidArgumentError(absl::StrCat("hands must be a multiple of ", n, " (at most ",
                                                   100 * n, ")"));
  // The person's seat is stored as the reserved, retired bot "human".
  absl::StatusOr<BotRow> human = store_->FindBot(kHumanBotName);
  if (!human.ok()) {
    BotRow row;
    row.name = kHumanBotName;
    row.endpoint = "(browser)";
    row.owner = "arena";
    absl::StatusOr<std::string> unheld = NewToken();  // nobody holds it
    if (!unheld.ok()) return unheld.status();
    row.token_hash = HashToken(*unheld);
    human = store_->AddBot(row);
    if (!human.ok()) human = store_->FindBot(kHumanBotName);  // made meanwhile
    if (!human.ok()) return human.status();
  }
  if (!human->retired) {  // AddBot stores every bot active
    human->retired = true;
    if (absl::Status s = store_->UpdateBot(*human); !s.ok()) return s;
  }
  Job job;
  job.match.id = r.match_id;
  job.match.variant = r.variant;
  job.match.kind = "play";
  {
    absl::StatusOr<SealedSeed> sealed = r.seed != 0 ? SealDerivedSeed(r.seed) : NewSealedSeed();
    if (!sealed.ok()) return sealed.status();
    job.match.seed = sealed->seed;
    job.match.seed_salt = sealed->salt;
    job.match.seed_commitment = sealed->commitment;
  }
  v1::MatchSpec& spec = job.spec;
  spec.set_match_id(r.match_id);
  spec.set_variant(r.variant);
  for (const auto& [k, v] : r.options) (*spec.mutable_options())[k] = v;
  for (const std::string& name : r.seats) {
    v1::SeatSpec* seat = spec.add_seats();
    if (name.empty()) {
      seat->set_name(kHumanBotName);
      seat->set_endpoint(r.relay_endpoint);
      job.match.bot_ids.push_back(human->id);
      continue;
    }
    absl::StatusOr<BotRow> b = store_->FindBot(name);
    if (!b.ok()) return absl::InvalidArgumentError(b.status().message());
    if (b->retired) return absl::InvalidArgumentError(absl::StrCat("bot '", name, "' is retired"));
    if (std::find(b->variants.begin(), b->variants.end(), r.variant) == b->variants.end())
      return absl::InvalidArgumentError(absl::StrCat("bot '", name, "' does not play ", r.variant));
    seat->set_name(b->name);
    seat->set_endpoint(b->endpoint);
    job.match.bot_ids.push_back(b->id);
  }
  spec.set_num_hands(hands);
  spec.set_seed(job.match.seed);
  spec.set_result_only(true);
  *spec.mutable_time_control() = r.time_control;
  *spec.mutable_fault_policy() = r.fault_policy;
  job.match.spec = ToJson(spec);
  std::vector<std::thread> ended;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return absl::UnavailableError("the arena is stopping");
    for (const std::string& id : play_ended_) {
      auto it = play_threads_.find(id);
      if (it == play_threads_.end()) continue;
      ended.push_back(std::move(it->second));
      play_threads_.erase(it);
    }
    play_ended_.clear();
    if (static_cast<int>(play_threads_.size()) >= std::max(1, options_.max_play_matches))
      return absl::ResourceExhaustedError(absl::StrCat(
          "the arena runs ", play_threads_.size(), " play matches already; try again later"));
    if (absl::Status s = store_->InsertMatch(job.match); !s.ok()) return s;
    in_flight_[job.match.id] = InFlight{"", 0, 0};
    SetRunningGauge();
    const std::string id = job.match.id;
    play_threads_[id] = std::thread([this, job = std::move(job)]() mutable {
      pthread_setname_np(pthread_self(), "arena-play");
      RunPlayJob(std::move(job));
    });
  }
  for (std::thread& t : ended) t.join();
  // Every play match is in the audit log: who asked from where.
  AuditRow audit;
  audit.actor = "anyone";
  audit.client = r.client;
  audit.action = "StartPlayMatch";
  audit.target = absl::StrCat("match:", r.match_id);
  audit.outcome = "ok";
  audit.detail = absl::StrCat(r.variant, "; opponents ", absl::StrJoin(r.seats, ","));
  (void)store_->AppendAudit(audit);  // the match runs; a full disk shows elsewhere
  return GetMatch(r.match_id, false);
}

void Scheduler::RunPlayJob(Job job) {
  const std::string id = job.match.id;
  const bool committing = RunJob(std::move(job));
  absl::MutexLock lock(&mu_);
  if (!committing) in_flight_.erase(id);  // else the writer does, once committed
  play_ended_.push_back(id);
  SetRunningGauge();
}

}  // namespace tarock::arena
