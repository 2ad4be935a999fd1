// Scheduler: registering, updating, retiring and listing bots.

#include "arena/scheduler/scheduler.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "arena/scheduler/bot_rules.h"
#include "arena/scheduler/scheduler_internal.h"
#include "arena/store/rating_pool.h"
#include "absl/strings/str_join.h"
#include "referee/engine/registry.h"
#include "tarock/transport/referee_proof.h"

namespace tarock::arena {

bool ValidBotName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return false;
  return true;
}

namespace {

// A bot's variants list: known variants, each once (a list of 20,000
// duplicates would be stored and listed on every read otherwise).
absl::Status CheckVariantList(const google::protobuf::RepeatedPtrField<std::string>& variants) {
  std::set<std::string> seen;
  for (const std::string& v : variants) {
    if (!Registry::Global().Info(v).ok())
      return absl::InvalidArgumentError(absl::StrCat("unknown variant '", ForTerminal(v, 64), "'"));
    if (!seen.insert(v).second)
      return absl::InvalidArgumentError(absl::StrCat("variant '", v, "' is named twice"));
  }
  return absl::OkStatus();
}

}  // namespace

// ---------------------------------------------------------------------------
// Bots.

absl::StatusOr<v1::AddBotResponse> Scheduler::AddBot(const v1::AddBotRequest& request,
                                                     const std::string& client) {
  if (absl::Status s = CheckNewBotName(request.name()); !s.ok()) return s;  // bot_rules.h
  if (request.dial_in() && request.hosted())
    return absl::InvalidArgumentError("a bot dials in or is hosted: give one or the other");
  const bool gateway = request.dial_in() || request.hosted();
  if (gateway && !request.endpoint().empty())
    return absl::InvalidArgumentError(absl::StrCat("a ", request.hosted() ? "hosted" : "dial-in",
                                                   " bot has no endpoint: give one or the other"));
  if (!gateway &&
      (request.endpoint().empty() || request.endpoint().find(':') == std::string::npos))
    return absl::InvalidArgumentError("the endpoint must be HOST:PORT");
  if (!gateway)
    if (auto checked = options_.endpoint_policy.Check(request.endpoint()); !checked.ok())
      return checked.status();
  if (request.variants().empty()) return absl::InvalidArgumentError("name at least one variant");
  if (absl::Status s = CheckVariantList(request.variants()); !s.ok()) return s;
  // A bot of an event's entrant (events.cc): the entrant's token, within the
  // event's limits; the owner is the entrant.
  std::optional<EventRow> event;
  std::optional<EntrantRow> entrant;
  std::string owner = request.owner();
  if (!request.event().empty() || !request.entrant_token().empty()) {
    absl::StatusOr<EventRow> e = store_->GetEvent(request.event());
    if (!e.ok()) return e.status();
    for (const EntrantRow& x : store_->ListEntrants(e->id))
      if (!request.entrant_token().empty() &&
          transport::ConstantTimeEquals(HashToken(request.entrant_token()), x.token_hash))
        entrant = x;
    if (!entrant)
      return absl::PermissionDeniedError(absl::StrCat(
          "registering a bot into '", request.event(), "' needs your entrant token (events join)"));
    if (e->status != "open")
      return absl::FailedPreconditionError(
          absl::StrCat("'", request.event(), "' takes no entries now (it is ", e->status, ")"));
    const v1::EventConfig c = scheduler_internal::FromJson<v1::EventConfig>(e->config);
    if (c.hosted_only() && !request.hosted())
      return absl::FailedPreconditionError(absl::StrCat(
          "'", request.event(),
          "' takes hosted bots only: register with --hosted, then upload your bot's code "
          "(docs/hosting.md)"));
    for (const std::string& v : request.variants())
      if (std::find(c.variants().begin(), c.variants().end(), v) == c.variants().end())
        return absl::InvalidArgumentError(absl::StrCat("'", request.event(), "' plays ",
                                                       absl::StrJoin(c.variants(), ", "), ", not ", v));
    int mine = 0;
    for (const EventBotRow& b : store_->EventBots(e->id))
      if (b.entrant_id == entrant->id && !b.withdrawn) ++mine;
    if (mine >= c.bots_per_entrant())
      return absl::ResourceExhaustedError(absl::StrCat("you have ", mine, " bot",
                                                       mine == 1 ? "" : "s", " in '", request.event(),
                                                       "' (its limit); withdraw one first"));
    event = *e;
    if (owner.empty()) owner = entrant->name;
  }
  if (absl::Status s = CheckOwner(owner); !s.ok()) return s;
  for (const BotRow& b : store_->ListBots(true))  // names are unique whatever their case
    if (SameBotName(b.name, request.name()))
      return absl::AlreadyExistsError(absl::StrCat("a bot named '", b.name, "' exists"));
  const std::string client_net = StorageNetworkOf(client);
  if (absl::Status s = CheckStorage(*store_, options_.storage, owner, client_net, 1, 0, 0); !s.ok())
    return s;
  BotRow row;
  row.client_net = client_net;
  row.name = request.name();
  row.endpoint = request.hosted()    ? kHostedEndpoint
                 : request.dial_in() ? kDialInEndpoint
                                     : request.endpoint();
  row.owner = owner;
  row.event_id = event ? event->id : 0;
  row.variants.assign(request.variants().begin(), request.variants().end());
  absl::StatusOr<std::string> token = NewToken();
  if (!token.ok()) return token.status();
  row.token_hash = HashToken(*token);
  absl::StatusOr<BotRow> added = store_->AddBot(row);
  if (!added.ok()) return added.status();
  if (event) {
    if (absl::Status s = store_->EnterBot({event->id, added->id, entrant->id, false, ""}); !s.ok()) {
      added->retired = true;  // not in the event: not anywhere
      store_->UpdateBot(*added).IgnoreError();
      return s;
    }
    store_->UpdateEntrant(*entrant).IgnoreError();  // "last changed" on the roster
  }
  v1::AddBotResponse out;
  *out.mutable_bot() = BotInfoOf(*added, false);
  out.set_token(*token);
  if (!options_.referee_secret_key.empty())
    out.set_referee_secret(transport::BotRefereeSecret(options_.referee_secret_key, added->name));
  return out;
}

absl::StatusOr<v1::BotInfo> Scheduler::UpdateBot(const v1::UpdateBotRequest& request) {
  absl::StatusOr<BotRow> bot = store_->FindBot(request.name());
  if (!bot.ok()) return bot.status();
  if (HashToken(request.token()) != bot->token_hash)
    return absl::PermissionDeniedError(absl::StrCat("wrong token for bot '", request.name(), "'"));
  if (bot->retired)
    return absl::FailedPreconditionError(absl::StrCat("bot '", request.name(), "' is retired"));
  if (!request.endpoint().empty()) {
    if (bot->endpoint == kHostedEndpoint)
      return absl::FailedPreconditionError(absl::StrCat(
          "bot '", request.name(), "' is hosted: it has no endpoint (upload a version instead)"));
    if (request.endpoint().find(':') == std::string::npos)
      return absl::InvalidArgumentError("the endpoint must be HOST:PORT");
    if (auto checked = options_.endpoint_policy.Check(request.endpoint()); !checked.ok())
      return checked.status();
    bot->endpoint = request.endpoint();
  }
  if (!request.variants().empty()) {
    if (absl::Status s = CheckVariantList(request.variants()); !s.ok()) return s;
    // An entrant's bot plays only its event's variants (as at registration).
    if (bot->event_id != 0) {
      absl::StatusOr<EventRow> e = store_->EventById(bot->event_id);
      if (!e.ok()) return e.status();
      const v1::EventConfig c = scheduler_internal::FromJson<v1::EventConfig>(e->config);
      for (const std::string& v : request.variants())
        if (std::find(c.variants().begin(), c.variants().end(), v) == c.variants().end())
          return absl::InvalidArgumentError(absl::StrCat("'", e->slug, "' plays ",
                                                         absl::StrJoin(c.variants(), ", "), ", not ", v));
    }
    bot->variants.assign(request.variants().begin(), request.variants().end());
  }
  if (absl::Status s = store_->UpdateBot(*bot); !s.ok()) return s;
  return BotInfoOf(*bot, false);
}

absl::StatusOr<v1::BotInfo> Scheduler::RetireBot(const v1::RetireBotRequest& request) {
  absl::StatusOr<BotRow> bot = store_->FindBot(request.name());
  if (!bot.ok()) return bot.status();
  if (HashToken(request.token()) != bot->token_hash)
    return absl::PermissionDeniedError(absl::StrCat("wrong token for bot '", request.name(), "'"));
  bot->retired = true;
  if (absl::Status s = store_->UpdateBot(*bot); !s.ok()) return s;
  return BotInfoOf(*bot, false);
}

// The events whose field each bot is in now (not withdrawn), by bot id.
std::map<int64_t, std::vector<std::string>> Scheduler::EventsByBot() {
  std::map<int64_t, std::vector<std::string>> out;
  for (const EventRow& e : store_->ListEvents())
    for (const EventBotRow& b : store_->EventBots(e.id))
      if (!b.withdrawn) out[b.bot_id].push_back(e.slug);
  return out;
}

namespace {

// The slugs of the unlisted events (EventConfig.unlisted): known only to
// whoever has their link.
std::set<std::string> UnlistedSlugs(Store* store) {
  std::set<std::string> out;
  for (const EventRow& e : store->ListEvents())
    if (scheduler_internal::FromJson<v1::EventConfig>(e.config).unlisted()) out.insert(e.slug);
  return out;
}

// A bot as the public sees it: no unlisted event's slug (its events, its
// ratings there) and, for an entrant's bot of one, not its owner (the
// entrant's name).
void HideUnlisted(const std::set<std::string>& unlisted, v1::BotInfo* info) {
  if (unlisted.empty()) return;
  if (unlisted.count(info->event())) {
    info->clear_event();
    info->clear_owner();
  }
  auto* events = info->mutable_events();
  events->erase(std::remove_if(events->begin(), events->end(),
                               [&](const std::string& e) { return unlisted.count(e) > 0; }),
                events->end());
  auto* ratings = info->mutable_ratings();
  ratings->erase(std::remove_if(ratings->begin(), ratings->end(),
                                [&](const v1::RatingInfo& r) { return unlisted.count(r.event()) > 0; }),
                 ratings->end());
  auto* margins = info->mutable_margin_ratings();
  margins->erase(
      std::remove_if(margins->begin(), margins->end(),
                     [&](const v1::BotMarginRating& r) { return unlisted.count(r.event()) > 0; }),
      margins->end());
}

}  // namespace

v1::ListBotsResponse Scheduler::ListBots(const v1::ListBotsRequest& request) {
  v1::ListBotsResponse out;
  const std::map<int64_t, std::vector<std::string>> events = EventsByBot();
  const std::set<std::string> unlisted = UnlistedSlugs(store_);
  for (const BotRow& b : store_->ListBots(request.include_retired())) {
    v1::BotInfo* info = out.add_bots();
    *info = BotInfoOf(b, false);
    if (auto it = events.find(b.id); it != events.end())
      for (const std::string& slug : it->second) info->add_events(slug);
    HideUnlisted(unlisted, info);
  }
  return out;
}

absl::StatusOr<v1::BotInfo> Scheduler::GetBot(const std::string& name, bool with_history) {
  absl::StatusOr<BotRow> bot = store_->FindBot(name);
  if (!bot.ok()) return bot.status();
  v1::BotInfo info = BotInfoOf(*bot, with_history);
  const std::map<int64_t, std::vector<std::string>> events = EventsByBot();
  if (auto it = events.find(bot->id); it != events.end())
    for (const std::string& slug : it->second) info.add_events(slug);
  HideUnlisted(UnlistedSlugs(store_), &info);
  return info;
}

v1::BotInfo Scheduler::BotInfoOf(const BotRow& bot, bool with_history) {
  v1::BotInfo info;
  info.set_name(bot.name);
  info.set_endpoint(bot.endpoint);
  for (const std::string& v : bot.variants) info.add_variants(v);
  info.set_owner(bot.owner);
  info.set_retired(bot.retired);
  info.set_dial_in(ThroughGateway(bot.endpoint));
  info.set_hosted(bot.endpoint == kHostedEndpoint);
  if (bot.event_id != 0) info.set_event(EventSlugOf(bot.event_id));
  info.set_online(info.dial_in() && dial_in_ && dial_in_->Online(bot.id));
  if (info.online())
    info.set_dial_in_route(direct_dial_in_ && dial_in_->CanJoinReferee(bot.id) ? "direct" : "relay");
  if (bot.retired) {
    info.set_health("retired");
  } else {
    const BotHealthState h = health_.Of(bot.id);
    // A dial-in bot that is not connected is not "online", whatever its record.
    info.set_health(!h.benched() && info.dial_in() && !info.online() ? "offline" : h.state);
    info.set_health_error(h.last_error);
    auto utc = [](absl::Time t) {
      return t == absl::InfinitePast() ? std::string()
                                       : absl::FormatTime("%Y-%m-%d %H:%M:%S", t, absl::UTCTimeZone());
    };
    info.set_health_since(utc(h.since));
    if (h.benched()) info.set_next_probe(utc(h.retry_at));
  }
  for (const RatingRow& r : store_->RatingsOfBot(bot.id)) {
    v1::RatingInfo* ri = info.add_ratings();
    const auto [variant, event_id] = SplitRatingPool(r.variant);
    ri->set_variant(variant);
    ri->set_event(EventSlugOf(event_id));
    ri->set_mu(r.mu);
    ri->set_sigma(r.sigma);
    ri->set_display(model_.Display({r.mu, r.sigma}));
    ri->set_matches(r.matches);
    ri->set_faults(r.faults);
  }
  for (const MarginRatingRow& r : store_->MarginRatingsOfBot(bot.id)) {
    v1::BotMarginRating* m = info.add_margin_ratings();
    const auto [variant, event_id] = SplitRatingPool(r.pool);
    m->set_variant(variant);
    m->set_event(EventSlugOf(event_id));
    m->set_unit(MarginUnit(variant));
    const MarginRating rating{r.mu, r.sigma, r.deals};
    v1::MarginRatingInfo* i = m->mutable_margin();
    i->set_mu(r.mu);
    i->set_sigma(r.sigma);
    i->set_low(margin_.Low(rating));
    i->set_high(margin_.High(rating));
    i->set_deals(r.deals);
    i->set_sets(r.sets);
    m->set_faults(r.faults);
  }
  if (with_history) {
    for (const HistoryRow& h : store_->HistoryOfBot(bot.id)) {
      v1::RatingPoint* p = info.add_history();
      p->set_match_seq(h.match_seq);
      p->set_match_id(h.match_id);
      p->set_variant(h.variant);
      p->set_mu(h.mu);
      p->set_sigma(h.sigma);
    }
  }
  return info;
}

}  // namespace tarock::arena
