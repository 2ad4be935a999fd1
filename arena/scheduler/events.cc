// Scheduler: events (docs/events.md). A class or a competition is an event:
// its own field (the bots its entrants register, and house bots its
// organiser enters), its own ladder per variant with ratings of their own
// (rating_pool.h), a schedule (registration opens and closes, the deadline),
// and a final: at the deadline the entries freeze, the ladders stop and a
// duplicate tournament of the field in a balanced design (event_design.h)
// runs by itself; its standings are the event's results. Event 0, the open
// event, is the arena as it was before events: the bots registered directly
// and the ladders started with StartLadder.
//
// Authority: the admin creates events; an event's organiser token (shown
// once) manages that event only; an entrant's token (shown once) registers
// and withdraws that entrant's bots. The stored tokens are hashes.

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "arena/scheduler/bot_health.h"
#include "arena/scheduler/bot_rules.h"
#include "arena/scheduler/dial_in.h"
#include "arena/scheduler/duplicate_design.h"
#include "arena/scheduler/event_design.h"
#include "arena/scheduler/scheduler.h"
#include "arena/scheduler/scheduler_internal.h"
#include "arena/store/rating_pool.h"
#include "nlohmann/json.hpp"
#include "referee/engine/registry.h"
#include "referee/logging/log.h"
#include "referee/net/secure_random.h"
#include "tarock/transport/referee_proof.h"

namespace tarock::arena {

namespace {

using scheduler_internal::FromJson;
using scheduler_internal::ToJson;
using json = nlohmann::json;

constexpr int kDefaultMaxEntrants = 200;
constexpr int kDefaultSignupsPerHour = 120;
constexpr int kDefaultFinalDeals = 64;
constexpr int kDefaultFinalBudget = 2000;
constexpr int kDefaultPresenceMinutes = 10;

absl::Duration PresenceWindow(const v1::EventConfig& c) {
  return absl::Minutes(c.final_presence_minutes() > 0 ? c.final_presence_minutes()
                                                      : kDefaultPresenceMinutes);
}

bool ValidSlug(const std::string& slug) {
  if (slug.size() < 2 || slug.size() > 40 || slug.front() == '-' || slug.back() == '-') return false;
  for (char c : slug)
    if (!(absl::ascii_islower(static_cast<unsigned char>(c)) ||
          absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == '-'))
      return false;
  return slug != "open";  // the open event's name
}

// "YYYY-MM-DD HH:MM:SS" UTC ('T' for the space and a trailing 'Z' allowed).
absl::StatusOr<absl::Time> ParseUtc(const std::string& what, std::string text) {
  absl::Time t;
  std::string err;
  std::string s = absl::StrReplaceAll(text, {{"T", " "}});
  absl::string_view v = s;
  absl::ConsumeSuffix(&v, "Z");
  if (!absl::ParseTime("%Y-%m-%d %H:%M:%S", v, absl::UTCTimeZone(), &t, &err))
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a UTC time \"YYYY-MM-DD HH:MM:SS\", not '", text, "'"));
  return t;
}

std::string Utc(absl::Time t) { return absl::FormatTime("%Y-%m-%d %H:%M:%S", t, absl::UTCTimeZone()); }

struct Schedule {
  absl::Time opens = absl::InfinitePast();
  absl::Time closes = absl::InfiniteFuture();
  absl::Time deadline = absl::InfiniteFuture();
};

Schedule ScheduleOf(const v1::EventConfig& c) {
  Schedule s;
  auto get = [](const std::string& text, absl::Time fallback) {
    if (text.empty()) return fallback;
    absl::StatusOr<absl::Time> t = ParseUtc("", text);
    return t.ok() ? *t : fallback;
  };
  s.opens = get(c.schedule().registration_opens(), absl::InfinitePast());
  s.deadline = get(c.schedule().deadline(), absl::InfiniteFuture());
  s.closes = get(c.schedule().registration_closes(), s.deadline);
  return s;
}

// Distinct deals a bot plays in the final -> groups it sits in (each group
// plays one deal set of hands_per_match hands, in every rotation).
int AppearancesFor(const v1::EventConfig& c, int hands_per_match) {
  const int deals = c.final_deals_per_bot() > 0 ? c.final_deals_per_bot() : kDefaultFinalDeals;
  return std::max(1, (deals + hands_per_match - 1) / std::max(1, hands_per_match));
}

// A bot name from a person's name: letters and digits, accented Latin
// letters transliterated ("Filip Kovač" -> "filipkovac", "Žiga" -> "ziga").
std::string BotNameOf(const std::string& entrant) {
  static const std::pair<const char*, const char*> kLatin[] = {
      {"č", "c"}, {"Č", "c"}, {"ć", "c"}, {"Ć", "c"}, {"ž", "z"}, {"Ž", "z"}, {"š", "s"},
      {"Š", "s"}, {"đ", "dj"}, {"Đ", "dj"}, {"á", "a"}, {"à", "a"}, {"â", "a"}, {"ä", "a"},
      {"ã", "a"}, {"å", "a"}, {"Á", "a"}, {"À", "a"}, {"Ä", "a"}, {"é", "e"}, {"è", "e"},
      {"ê", "e"}, {"ë", "e"}, {"ě", "e"}, {"É", "e"}, {"È", "e"}, {"í", "i"}, {"ì", "i"},
      {"î", "i"}, {"ï", "i"}, {"Í", "i"}, {"ó", "o"}, {"ò", "o"}, {"ô", "o"}, {"ö", "o"},
      {"õ", "o"}, {"ő", "o"}, {"ø", "o"}, {"Ó", "o"}, {"Ö", "o"}, {"Ø", "o"}, {"ú", "u"},
      {"ù", "u"}, {"û", "u"}, {"ü", "u"}, {"ű", "u"}, {"ů", "u"}, {"Ú", "u"}, {"Ü", "u"},
      {"ý", "y"}, {"Ý", "y"}, {"ñ", "n"}, {"ň", "n"}, {"Ñ", "n"}, {"ř", "r"}, {"Ř", "r"},
      {"ť", "t"}, {"ď", "d"}, {"ľ", "l"}, {"ł", "l"}, {"Ł", "l"}, {"ß", "ss"}, {"ç", "c"},
      {"Ç", "c"}, {"ś", "s"}, {"ź", "z"}, {"ż", "z"}, {"ń", "n"}, {"ą", "a"}, {"ę", "e"}};
  std::string text = entrant;
  for (const auto& [from, to] : kLatin) absl::StrReplaceAll({{from, to}}, &text);
  std::string name;
  for (char ch : text)
    if (absl::ascii_isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_')
      name += absl::ascii_tolower(static_cast<unsigned char>(ch));
  return name.empty() ? "bot" : name.substr(0, 40);
}

}  // namespace

// The lines an entrant pastes (docs/events.md, "Sign-up"): the token in the
// environment (kept out of the command line and `ps`), then the command that
// registers their bot, naming the arena it was made for.
std::string EntrantConnectLine(const std::string& slug, const std::string& token,
                               const std::string& entrant, const v1::EventConfig& c,
                               const std::string& arena, bool tls) {
  const std::string where =
      absl::StrCat(arena.empty() ? "" : absl::StrCat(" --arena ", arena), tls ? " --tls_ca ca.pem" : "");
  return absl::StrCat("export TAROCK_ENTRANT_TOKEN=", token, "\n",
                      "python3 -m tarock_bot register ", slug, "-", BotNameOf(entrant),
                      c.hosted_only() ? " --hosted" : " --dial_in", " --variants ",
                      absl::StrJoin(c.variants(), ","), " --event ", slug, where);
}

namespace {

// A text cell of the grading CSV. A cell a spreadsheet would read as a
// formula (one starting with = + - @, a tab or a carriage return: an
// entrant named "=HYPERLINK(...)") gets a leading ' and quotes, as OWASP's
// "CSV Injection" advises, so it shows as the text it is.
std::string CsvField(const std::string& v) {
  const bool formula = !v.empty() && std::string_view("=+-@\t\r").find(v[0]) != std::string::npos;
  if (!formula && v.find_first_of(",\"\n\r") == std::string::npos) return v;
  return absl::StrCat("\"", formula ? "'" : "", absl::StrReplaceAll(v, {{"\"", "\"\""}}), "\"");
}

}  // namespace

const std::vector<std::string> kEventExportColumns = {
    "entrant", "bot", "health", "final_status", "final_place", "final_margin_place",
    "final_margin", "final_margin_ci95", "final_unseparated_from_next", "final_mean",
    "final_mean_ci95", "final_deals", "final_faults", "final_absent_matches", "frozen",
    "version_played", "last_upload", "last_upload_status", "ladder_model", "ladder_rank",
    "ladder_score", "ladder_ci95_or_sigma", "ladder_deals_or_matches", "ladder_faults", "joined",
    "last_changed", "note"};

// ---------------------------------------------------------------------------
// Look-ups.

absl::StatusOr<int64_t> Scheduler::EventIdOf(const std::string& slug) {
  if (slug.empty() || slug == "open") return 0;
  {
    absl::MutexLock lock(&signup_mu_);
    for (const auto& [id, s] : event_slugs_)
      if (s == slug) return id;
  }
  absl::StatusOr<EventRow> row = store_->GetEvent(slug);
  if (!row.ok()) return row.status();
  absl::MutexLock lock(&signup_mu_);
  event_slugs_[row->id] = row->slug;
  return row->id;
}

std::string Scheduler::EventSlugOf(int64_t id) {
  if (id == 0) return "";
  {
    absl::MutexLock lock(&signup_mu_);
    auto it = event_slugs_.find(id);
    if (it != event_slugs_.end()) return it->second;
  }
  absl::StatusOr<EventRow> row = store_->EventById(id);
  if (!row.ok()) return absl::StrCat("event-", id);
  absl::MutexLock lock(&signup_mu_);
  event_slugs_[id] = row->slug;
  return row->slug;
}

absl::StatusOr<EventRow> Scheduler::EventForOrganiser(const std::string& slug,
                                                      const std::string& token) {
  absl::StatusOr<EventRow> row = store_->GetEvent(slug);
  if (!row.ok()) return row.status();
  if (IsAdminToken(token)) return row;
  if (token.empty() || !transport::ConstantTimeEquals(HashToken(token), row->organiser_token_hash))
    return absl::PermissionDeniedError(
        absl::StrCat("this needs the organiser token of event '", slug, "'"));
  return row;
}

std::vector<BotRow> Scheduler::EventField(int64_t event_id, std::vector<int64_t>* entrant_of) {
  std::vector<BotRow> out;
  for (const EventBotRow& e : store_->EventBots(event_id)) {
    if (e.withdrawn) continue;
    absl::StatusOr<BotRow> bot = store_->BotById(e.bot_id);
    if (!bot.ok() || bot->retired) continue;
    out.push_back(*bot);
    if (entrant_of) entrant_of->push_back(e.entrant_id);
  }
  return out;
}

v1::EventLadder Scheduler::PlanEventLadder(const std::vector<BotRow>& field,
                                           const std::string& variant) {
  v1::EventLadder out;
  out.set_variant(variant);
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(variant);
  const int n = info.ok() ? info->num_seats : 0;
  std::vector<const BotRow*> playing;
  for (const BotRow& b : field)
    if (std::find(b.variants.begin(), b.variants.end(), variant) != b.variants.end())
      playing.push_back(&b);
  const int bots = static_cast<int>(playing.size());
  out.set_bots(bots);
  // Rotated (n bots) only when every bot is hosted fresh per match and its
  // tables can run on machines of their own (ChooseSetDesign; ladders.cc,
  // MakeLadderJobs); read only when it decides anything.
  SetDesign design = SetDesign::kBridge;
  if (n > 0 && bots >= n && bots < BotsPerSet(SetDesign::kBridge, n) &&
      std::all_of(playing.begin(), playing.end(), [&](const BotRow* b) {
        return b->endpoint == kHostedEndpoint && !store_->ListVersions(b->id).empty();
      }))
    design = ChooseSetDesign(true, kHostsPerHostedBot, n);
  const int need = n > 0 ? BotsPerSet(design, n) : 0;
  out.set_set_bots(need);
  const bool duplicate = n > 0 && bots >= need;
  out.set_format(duplicate ? "duplicate" : "match");
  out.set_rating_model(duplicate ? "margin" : "place");
  out.set_note(duplicate
                   ? absl::StrCat("duplicate sets (", SetDesignName(design), ", ", need,
                                  " bots a set) rated on score margins: ", MarginUnit(variant),
                                  " with a 95% interval")
                   : absl::StrCat("matches rated on places until the field can fill a duplicate set: ",
                                  need, " bots needed, ", bots, " play ", variant));
  return out;
}

v1::EventInfo Scheduler::EventInfoOf(const EventRow& row, bool with_results) {
  v1::EventInfo info;
  info.set_id(row.id);
  *info.mutable_config() = FromJson<v1::EventConfig>(row.config);
  info.set_status(row.status);
  info.set_entrants(static_cast<int>(store_->ListEntrants(row.id).size()));
  std::vector<int64_t> entrant_of;
  std::vector<BotRow> field = EventField(row.id, &entrant_of);
  info.set_bots(static_cast<int>(field.size()));
  MatchFilter f;
  f.event_id = row.id;
  f.kind = "ladder";
  f.status = "done";
  int64_t total = 0;
  store_->ListMatchesPage(f, 0, 0, &total);
  info.set_ladder_matches(total);
  info.set_final_tournament_id(row.final_tournament_id);
  info.set_frozen_at(row.frozen_at);
  info.set_created_at(row.created_at);
  const v1::EventConfig& c = info.config();
  std::string absent_note;
  if (row.status == "upcoming" || row.status == "open") {
    // What the final would cost with today's field: the bots that would
    // play it if the deadline were now (AbsentFromFinal), the others listed.
    absl::StatusOr<VariantInfo> v = Registry::Global().Info(c.variants(0));
    std::map<int64_t, std::string> entrant_names;
    for (const EntrantRow& e : store_->ListEntrants(row.id)) entrant_names[e.id] = e.name;
    std::vector<int64_t> present;
    const absl::Time now = absl::Now();
    std::vector<std::string> absent;
    for (size_t i = 0; i < field.size(); ++i) {
      if (std::find(field[i].variants.begin(), field[i].variants.end(), c.variants(0)) ==
          field[i].variants.end())
        continue;
      const std::string why = AbsentFromFinal(field[i], now, PresenceWindow(c));
      if (why.empty()) {
        present.push_back(entrant_of[i]);
        continue;
      }
      v1::EventLeftOut* x = info.add_left_out();
      x->set_bot(field[i].name);
      x->set_entrant(entrant_of[i] ? entrant_names[entrant_of[i]] : "");
      x->set_reason(why);
      absent.push_back(field[i].name);
    }
    if (!absent.empty())
      absent_note = absl::StrCat(absent.size(), absent.size() == 1 ? " bot" : " bots",
                                 " offline: not in the final unless online within ",
                                 absl::ToInt64Minutes(PresenceWindow(c)),
                                 " min before the deadline (", absl::StrJoin(absent, ", "), ")");
    if (v.ok() && !present.empty()) {
      const int hands = c.hands_per_match() ? c.hands_per_match() : 2 * v->num_seats;
      FinalDesignOptions o;
      o.seats = v->num_seats;
      o.appearances_per_bot = AppearancesFor(c, hands);
      o.max_groups = (c.final_match_budget() ? c.final_match_budget() : kDefaultFinalBudget) /
                     v->num_seats;
      absl::StatusOr<FinalDesign> d = MakeFinalDesign(present, o);
      if (d.ok()) {
        info.set_final_matches_planned(static_cast<int>(d->groups.size()) * v->num_seats);
        info.set_final_deals_per_bot(d->appearances_per_bot * hands);
      }
    }
  } else {
    for (const v1::EventLeftOut& x : c.final_left_out()) *info.add_left_out() = x;
  }
  info.set_note(absent_note.empty() ? c.note()
                : c.note().empty()  ? absent_note
                                    : absl::StrCat(c.note(), "; ", absent_note));
  // Each variant's ladder: the running (else the newest stored) ladder's
  // format and model; the plan from today's field while none was stored.
  {
    std::map<std::string, std::pair<int64_t, v1::LadderConfig>> newest;
    for (const LadderRow& l : store_->ListLadders()) {
      v1::LadderConfig lc = FromJson<v1::LadderConfig>(l.config);
      if (lc.event() != row.slug) continue;
      auto& slot = newest[l.variant];
      if (l.id > slot.first) slot = {l.id, std::move(lc)};
    }
    for (const std::string& v : c.variants()) {
      v1::EventLadder plan = PlanEventLadder(field, v);
      auto it = newest.find(v);
      if (it != newest.end()) {
        absl::StatusOr<std::pair<LadderFormat, RatingModelKind>> modes = LadderModes(it->second.second);
        if (modes.ok()) {
          const bool margin = modes->second == RatingModelKind::kMargin;
          if (margin != (plan.rating_model() == "margin"))
            plan.set_note(margin ? absl::StrCat("duplicate sets rated on score margins (",
                                                MarginUnit(v), "); ", plan.note())
                                 : absl::StrCat("matches rated on places; ", plan.note()));
          plan.set_format(modes->first == LadderFormat::kDuplicate ? "duplicate" : "match");
          plan.set_rating_model(margin ? "margin" : "place");
        }
      }
      *info.add_ladders() = std::move(plan);
    }
  }
  if (with_results && row.final_tournament_id) {
    absl::StatusOr<v1::TournamentInfo> t = GetTournament(row.final_tournament_id);
    if (t.ok()) {
      std::map<int64_t, std::string> entrant_names;
      for (const EntrantRow& e : store_->ListEntrants(row.id)) entrant_names[e.id] = e.name;
      std::map<std::string, std::string> entrant_of_bot;
      std::set<std::string> hosted;  // frozen at the deadline (hosted_bots.h, Sync)
      for (const EventBotRow& e : store_->EventBots(row.id)) {
        absl::StatusOr<BotRow> b = store_->BotById(e.bot_id);
        if (!b.ok()) continue;
        entrant_of_bot[b->name] = e.entrant_id ? entrant_names[e.entrant_id] : "";
        if (!store_->ListVersions(b->id).empty()) hosted.insert(b->name);
      }
      // Who played each bot's seats, its faults, the distinct deals
      // (docs/events.md "Export for grading"): frozen only when a bot host
      // played every seat of it with a version ready by the freeze.
      struct SeatFacts {
        int matches = 0, faults = 0, absent = 0;
        std::map<uint64_t, int> deals;  // seed -> hands of that deal set
        std::set<int64_t> versions;
        bool own = false;        // a seat without a hosted version
        bool after_freeze = false;  // a version not ready at the freeze
      };
      std::map<std::string, SeatFacts> facts;
      std::map<int64_t, std::string> ready_at;  // version -> when it was ready
      const std::vector<MatchRow> final_tables = store_->TournamentMatches(row.final_tournament_id);
      const std::vector<bool> tables_shown = DealsPublic(final_tables);  // sealed with their deal
      for (size_t i = 0; i < final_tables.size(); ++i) {
        const MatchRow& m = final_tables[i];
        if (m.status != "done" || !tables_shown[i]) continue;
        for (const SeatRow& seat : store_->SeatsOf(m.id)) {
          SeatFacts& f = facts[seat.bot];
          ++f.matches;
          f.faults += seat.faults;
          if (absl::StrContains(seat.fault_kinds, "disconnect")) ++f.absent;
          f.deals[m.seed] = seat.hand_scores ? static_cast<int>(seat.hand_scores->size()) : m.hands;
          if (seat.version_id == 0) {
            f.own = true;
            continue;
          }
          f.versions.insert(seat.version_id);
          if (!ready_at.count(seat.version_id)) {
            absl::StatusOr<VersionRow> v = store_->GetVersion(seat.version_id);
            ready_at[seat.version_id] = v.ok() ? v->ready_at : "";
          }
          const std::string& ready = ready_at[seat.version_id];
          if (ready.empty() || row.frozen_at.empty() || ready > row.frozen_at) f.after_freeze = true;
        }
      }
      std::map<std::string, std::string> last_upload;
      for (const EventBotRow& e : store_->EventBots(row.id)) {
        absl::StatusOr<BotRow> b = store_->BotById(e.bot_id);
        if (!b.ok()) continue;
        for (const VersionRow& v : store_->ListVersions(b->id)) {  // newest first
          last_upload[b->name] = v.uploaded_at;
          break;
        }
      }
      // The pairs: per match, each bot's points a hand (over its seats).
      struct Played {
        std::map<std::string, double> per_hand;  // bot -> mean per hand in the match
      };
      std::vector<Played> played;
      const std::vector<MatchRow> final_matches = store_->TournamentMatches(row.final_tournament_id);
      const std::vector<bool> shown = DealsPublic(final_matches);  // results sealed with their deal
      for (size_t i = 0; i < final_matches.size(); ++i) {
        const MatchRow& m = final_matches[i];
        if (m.status != "done" || !shown[i]) continue;
        Played p;
        std::map<std::string, std::pair<double, int>> sum;
        for (const SeatRow& seat : store_->SeatsOf(m.id)) {
          if (!seat.hand_scores) continue;
          for (int64_t x : *seat.hand_scores) {
            sum[seat.bot].first += static_cast<double>(x);
            ++sum[seat.bot].second;
          }
        }
        for (const auto& [bot, s] : sum)
          if (s.second) p.per_hand[bot] = s.first / s.second;
        played.push_back(std::move(p));
      }
      std::vector<std::string> bots;
      for (const v1::TournamentStanding& s : t->standings()) bots.push_back(s.bot());
      std::vector<v1::EventPair> pairs;
      auto mean = [](double sum, int n) { return n ? sum / n : 0.0; };
      for (size_t i = 0; i < bots.size(); ++i)
        for (size_t j = i + 1; j < bots.size(); ++j) {
          double aw = 0, ao = 0, bw = 0, bo = 0;
          int naw = 0, nao = 0, nbw = 0, nbo = 0, together = 0;
          for (const Played& p : played) {
            const bool a = p.per_hand.count(bots[i]), b = p.per_hand.count(bots[j]);
            if (a && b) ++together;
            if (a) (b ? (aw += p.per_hand.at(bots[i]), ++naw) : (ao += p.per_hand.at(bots[i]), ++nao));
            if (b) (a ? (bw += p.per_hand.at(bots[j]), ++nbw) : (bo += p.per_hand.at(bots[j]), ++nbo));
          }
          if (!together || !nao || !nbo) continue;  // nothing to compare
          v1::EventPair x;
          x.set_a(bots[i]);
          x.set_b(bots[j]);
          x.set_matches_together(together);
          x.set_a_with(mean(aw, naw));
          x.set_a_without(mean(ao, nao));
          x.set_b_with(mean(bw, nbw));
          x.set_b_without(mean(bo, nbo));
          x.set_joint_gain(x.a_with() - x.a_without() + x.b_with() - x.b_without());
          pairs.push_back(x);
        }
      std::sort(pairs.begin(), pairs.end(), [](const v1::EventPair& x, const v1::EventPair& y) {
        if (x.joint_gain() != y.joint_gain()) return x.joint_gain() > y.joint_gain();
        return std::tie(x.a(), x.b()) < std::tie(y.a(), y.b());
      });
      for (v1::EventPair& x : pairs) *info.add_pairs() = std::move(x);
      // The final's margins: each rotated set (one seed: a table's deal in
      // every seating) rated as a duplicate ladder set would be, in the order
      // played, from no prior (RateSet, ladders.cc).
      std::map<std::string, v1::MarginRatingInfo> final_margin;
      {
        std::vector<std::vector<SetTableRow>> sets;
        std::map<uint64_t, size_t> set_of_seed;
        for (const MatchRow& m : store_->TournamentMatches(row.final_tournament_id)) {
          auto [it, fresh] = set_of_seed.emplace(m.seed, sets.size());
          if (fresh) sets.emplace_back();
          SetTableRow table;
          table.match = m;
          if (m.status == "done") table.seats = store_->SeatsOf(m.id);
          sets[it->second].push_back(std::move(table));
        }
        std::map<int64_t, MarginRatingRow> current;
        std::map<int64_t, std::string> names;
        MarginNoiseRow noise;
        for (const std::vector<SetTableRow>& set : sets) {
          // Only a set whose every table is over: a margin of a deal still
          // played at another table would tell how it went (as the ladder
          // books a set only once it is complete).
          if (std::any_of(set.begin(), set.end(), [](const SetTableRow& t) {
                return t.match.status != "done" && t.match.status != "failed";
              }))
            continue;
          for (const SetTableRow& table : set)
            for (const SeatRow& seat : table.seats) names[seat.bot_id] = seat.bot;
          absl::StatusOr<Store::SetRating> rated = RateSet(margin_, set, current, noise);
          if (!rated.ok()) continue;
          noise = rated->noise;
          for (const MarginRatingRow& r : rated->ratings) current[r.bot_id] = r;
        }
        for (const auto& [bot, r] : current) {
          const MarginRating m{r.mu, r.sigma, r.deals};
          v1::MarginRatingInfo& out = final_margin[names[bot]];
          out.set_mu(r.mu);
          out.set_sigma(r.sigma);
          out.set_low(margin_.Low(m));
          out.set_high(margin_.High(m));
          out.set_deals(r.deals);
          out.set_sets(r.sets);
        }
      }
      int place = 0;
      for (const v1::TournamentStanding& s : t->standings()) {
        v1::EventStanding* r = info.add_results();
        r->set_place(++place);
        r->set_bot(s.bot());
        r->set_entrant(entrant_of_bot[s.bot()]);
        r->set_mean(s.mean_per_hand());
        r->set_ci95(s.ci95());
        r->set_hands(s.hands());
        r->set_total(s.total());
        const SeatFacts& f = facts[s.bot()];
        r->set_frozen(hosted.count(s.bot()) > 0 && f.matches > 0 && !f.own && !f.after_freeze);
        r->set_faults(f.faults);
        r->set_matches(f.matches);
        r->set_absent_matches(f.absent);
        int deals = 0;
        for (const auto& [seed, n] : f.deals) deals += n;
        r->set_deals(deals);
        if (f.own) {
          r->set_version("own program");
        } else if (!f.versions.empty()) {
          std::vector<std::string> vs;
          for (int64_t v : f.versions) vs.push_back(absl::StrCat("v", v));
          r->set_version(absl::StrJoin(vs, ","));
        }
        r->set_last_upload(last_upload[s.bot()]);
        if (f.absent > 0)
          r->set_note(absl::StrCat("dropped out: not connected in ", f.absent, " of its ", f.matches,
                                   " matches (the fallback played its seat there)"));
        if (auto m = final_margin.find(s.bot()); m != final_margin.end()) *r->mutable_margin() = m->second;
      }
      // The margin's order: its place, and whether its interval overlaps the
      // next one's (the final does not separate the two).
      std::vector<v1::EventStanding*> by_margin;
      for (v1::EventStanding& r : *info.mutable_results())
        if (r.margin().deals() > 0) by_margin.push_back(&r);
      std::stable_sort(by_margin.begin(), by_margin.end(),
                       [](const v1::EventStanding* a, const v1::EventStanding* b) {
                         return a->margin().mu() > b->margin().mu();
                       });
      for (size_t i = 0; i < by_margin.size(); ++i) {
        by_margin[i]->set_margin_place(static_cast<int>(i) + 1);
        if (i + 1 < by_margin.size())
          by_margin[i]->set_unseparated_from_next(by_margin[i]->margin().low() <=
                                                  by_margin[i + 1]->margin().high());
      }
    }
  }
  return info;
}

// ---------------------------------------------------------------------------
// The organiser's and the entrants' calls.

absl::StatusOr<v1::CreateEventResponse> Scheduler::CreateEvent(const v1::CreateEventRequest& r) {
  if (absl::Status s = CheckAdmin(r.admin_token()); !s.ok()) return s;
  v1::EventConfig c = r.config();
  if (!ValidSlug(c.slug()))
    return absl::InvalidArgumentError(
        "the slug is 2-40 characters of a-z, 0-9 and '-' (not at either end, not 'open')");
  if (absl::Status s = CheckText("the name", c.name(), 100); !s.ok()) return s;
  if (c.kind() != "class" && c.kind() != "competition")
    return absl::InvalidArgumentError("the kind is 'class' or 'competition'");
  if (!c.description().empty())
    if (absl::Status s = CheckText("the description", c.description(), 2000, true); !s.ok()) return s;
  if (c.variants().empty()) return absl::InvalidArgumentError("name at least one variant");
  int seats = 0;
  for (const std::string& v : c.variants()) {
    absl::StatusOr<VariantInfo> info = Registry::Global().Info(v);
    if (!info.ok()) return absl::InvalidArgumentError(absl::StrCat("unknown variant '", v, "'"));
    if (c.hands_per_match() % info->num_seats != 0)
      return absl::InvalidArgumentError(
          absl::StrCat("hands_per_match must be a multiple of ", info->num_seats, " (", v, ")"));
    if (!seats) seats = info->num_seats;
  }
  if (c.hands_per_match() < 0) return absl::InvalidArgumentError("hands_per_match must not be negative");
  const absl::Time now = absl::Now();
  for (const auto& [what, text] :
       {std::pair<std::string, std::string>{"registration_opens", c.schedule().registration_opens()},
        {"registration_closes", c.schedule().registration_closes()},
        {"deadline", c.schedule().deadline()}})
    if (!text.empty())
      if (absl::StatusOr<absl::Time> t = ParseUtc(what, text); !t.ok()) return t.status();
  const Schedule sched = ScheduleOf(c);
  if (sched.closes > sched.deadline)
    return absl::InvalidArgumentError("registration must close by the deadline");
  if (sched.opens >= sched.closes)
    return absl::InvalidArgumentError("registration must open before it closes");
  if (sched.deadline != absl::InfiniteFuture() && sched.deadline <= now)
    return absl::InvalidArgumentError("the deadline has passed");
  auto bound = [](int v, int fallback) { return v == 0 ? fallback : v; };
  c.set_max_entrants(bound(c.max_entrants(), kDefaultMaxEntrants));
  c.set_bots_per_entrant(bound(c.bots_per_entrant(), 1));
  c.set_signups_per_hour(bound(c.signups_per_hour(), kDefaultSignupsPerHour));
  c.set_final_deals_per_bot(bound(c.final_deals_per_bot(), kDefaultFinalDeals));
  c.set_final_match_budget(bound(c.final_match_budget(), kDefaultFinalBudget));
  c.set_weight(bound(c.weight(), 1));
  c.set_final_presence_minutes(bound(c.final_presence_minutes(), kDefaultPresenceMinutes));
  c.clear_note();  // the arena's to set
  c.clear_final_left_out();
  if (c.final_presence_minutes() < 1 || c.final_presence_minutes() > 1440)
    return absl::InvalidArgumentError("final_presence_minutes is 1-1440");
  if (c.max_entrants() < 1 || c.max_entrants() > 10000 || c.bots_per_entrant() < 1 ||
      c.bots_per_entrant() > 10 || c.signups_per_hour() < 1 || c.final_deals_per_bot() < 1 ||
      c.final_deals_per_bot() > 10000 || c.final_match_budget() < 1 ||
      c.final_match_budget() > 20000 || c.weight() < 1 || c.weight() > 100)
    return absl::InvalidArgumentError(
        "limits: max_entrants 1-10000, bots_per_entrant 1-10, signups_per_hour at least 1, "
        "final_deals_per_bot 1-10000, final_match_budget 1-20000, weight 1-100");
  if (c.hands_per_match() == 0) c.set_hands_per_match(2 * seats);
  absl::StatusOr<std::string> organiser = NewToken();
  if (!organiser.ok()) return organiser.status();
  absl::StatusOr<std::string> code = net::SecureRandomHex(8);
  if (!code.ok()) return code.status();
  EventRow row;
  row.slug = c.slug();
  row.status = now >= sched.opens ? "open" : "upcoming";
  row.organiser_token_hash = HashToken(*organiser);
  row.invite_code = *code;
  row.config = ToJson(c);
  absl::StatusOr<int64_t> id = store_->InsertEvent(row);
  if (!id.ok()) return id.status();
  row.id = *id;
  if (row.status == "open") EventTick(now);  // its ladders start now
  absl::StatusOr<EventRow> stored = store_->EventById(*id);
  v1::CreateEventResponse out;
  *out.mutable_event() = EventInfoOf(stored.ok() ? *stored : row, false);
  out.set_organiser_token(*organiser);
  out.set_invite_code(*code);
  return out;
}

v1::ListEventsResponse Scheduler::ListEvents() {
  v1::ListEventsResponse out;
  std::vector<EventRow> rows = store_->ListEvents();
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
    v1::EventConfig c = FromJson<v1::EventConfig>(it->config);
    if (c.unlisted()) continue;
    *out.add_events() = EventInfoOf(*it, false);
  }
  // The open event: the arena's own ladders.
  v1::EventInfo* open = out.add_events();
  open->mutable_config()->set_slug("open");
  open->mutable_config()->set_name("Open ladders");
  open->mutable_config()->set_kind("standing");
  open->mutable_config()->set_description(
      "The arena's standing ladders: every bot registered directly plays them.");
  open->set_status("open");
  std::set<std::string> variants;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [key, ladder] : ladders_)
      if (ladder.event_id == 0) variants.insert(ladder.config.variant());
  }
  for (const std::string& v : variants) open->mutable_config()->add_variants(v);
  return out;
}

absl::StatusOr<v1::EventInfo> Scheduler::GetEvent(const v1::GetEventRequest& r) {
  absl::StatusOr<EventRow> row = store_->GetEvent(r.slug());
  if (!row.ok()) return row.status();
  v1::EventInfo info = EventInfoOf(*row, true);
  if (!r.organiser_token().empty() && EventForOrganiser(r.slug(), r.organiser_token()).ok())
    info.set_invite_code(row->invite_code);
  return info;
}

absl::StatusOr<v1::JoinEventResponse> Scheduler::JoinEvent(const v1::JoinEventRequest& r) {
  if (r.code().empty() || r.code().size() > 64)
    return absl::InvalidArgumentError("give the invite code your organiser handed out");
  std::optional<EventRow> event;
  for (const EventRow& e : store_->ListEvents())
    if (transport::ConstantTimeEquals(e.invite_code, r.code())) event = e;
  if (!event) return absl::NotFoundError("no event has this invite code: check it with your organiser");
  if (absl::Status s = CheckPersonName("your name", r.name(), 64); !s.ok()) return s;
  const v1::EventConfig c = FromJson<v1::EventConfig>(event->config);
  const Schedule sched = ScheduleOf(c);
  const absl::Time now = absl::Now();
  if (event->status == "closed" || event->status == "frozen" || event->status == "finished")
    return absl::FailedPreconditionError(
        absl::StrCat("registration for '", c.name(), "' is closed (the event is ", event->status, ")"));
  if (now < sched.opens)
    return absl::FailedPreconditionError(absl::StrCat("registration for '", c.name(), "' opens at ",
                                                      Utc(sched.opens), " UTC"));
  if (now >= sched.closes)
    return absl::FailedPreconditionError(absl::StrCat("registration for '", c.name(), "' closed at ",
                                                      Utc(sched.closes), " UTC"));
  std::vector<EntrantRow> entrants = store_->ListEntrants(event->id);
  for (const EntrantRow& e : entrants)
    if (SamePersonName(e.name, r.name()))  // look-alikes too (bot_rules.h)
      return absl::AlreadyExistsError(absl::StrCat("someone named '", e.name,
                                                   "' has joined: choose another name"));
  if (static_cast<int>(entrants.size()) >= c.max_entrants())
    return absl::ResourceExhaustedError(
        absl::StrCat("'", c.name(), "' is full (", c.max_entrants(), " entrants)"));
  {
    // Sign-ups per event and hour: a leaked code cannot fill the event at once.
    absl::MutexLock lock(&signup_mu_);
    const int64_t hour = absl::ToUnixSeconds(now) / 3600;
    auto& [h, count] = signups_[event->id];
    if (h != hour) h = hour, count = 0;
    if (count >= c.signups_per_hour())
      return absl::ResourceExhaustedError(absl::StrCat(
          "too many sign-ups to '", c.name(), "' this hour; try again in a few minutes"));
    ++count;
  }
  absl::StatusOr<std::string> token = NewToken();
  if (!token.ok()) return token.status();
  EntrantRow row;
  row.event_id = event->id;
  row.name = r.name();
  row.token_hash = HashToken(*token);
  absl::StatusOr<EntrantRow> added = store_->InsertEntrant(row);
  if (!added.ok()) return added.status();
  v1::JoinEventResponse out;
  out.set_event(event->slug);
  out.set_entrant(added->name);
  out.set_token(*token);
  out.set_connect_line(EntrantConnectLine(event->slug, *token, added->name, c, options_.public_address, options_.public_tls));
  return out;
}

absl::StatusOr<v1::EventRosterResponse> Scheduler::EventRoster(const v1::EventRosterRequest& r) {
  absl::StatusOr<EventRow> event = EventForOrganiser(r.slug(), r.organiser_token());
  if (!event.ok()) return event.status();
  v1::EventRosterResponse out;
  out.set_invite_code(event->invite_code);
  std::map<int64_t, v1::EventEntrant*> by_id;
  for (const EntrantRow& e : store_->ListEntrants(event->id)) {
    v1::EventEntrant* x = out.add_entrants();
    x->set_name(e.name);
    x->set_joined_at(e.created_at);
    x->set_updated_at(e.updated_at);
    by_id[e.id] = x;
  }
  for (const EventBotRow& e : store_->EventBots(event->id)) {
    absl::StatusOr<BotRow> bot = store_->BotById(e.bot_id);
    if (!bot.ok()) continue;
    v1::BotInfo info = BotInfoOf(*bot, false);
    if (e.withdrawn) info.set_health("withdrawn");
    auto it = by_id.find(e.entrant_id);
    // An upload is a change of the entrant's too, and its build may have
    // failed (the newest first).
    for (const VersionRow& v : store_->ListVersions(bot->id)) {
      if (it != by_id.end() && v.uploaded_at > it->second->updated_at()) it->second->set_updated_at(v.uploaded_at);
      info.set_newest_version(v.id);
      info.set_newest_version_status(v.status);
      break;
    }
    if (e.entrant_id == 0 || it == by_id.end())
      *out.add_house_bots() = info;
    else
      *it->second->add_bots() = info;
  }
  return out;
}

absl::StatusOr<v1::RegisterRosterResponse> Scheduler::RegisterRoster(
    const v1::RegisterRosterRequest& r) {
  absl::StatusOr<EventRow> event = EventForOrganiser(r.slug(), r.organiser_token());
  if (!event.ok()) return event.status();
  if (event->status != "open" && event->status != "upcoming")
    return absl::FailedPreconditionError(absl::StrCat("event '", r.slug(), "' is ", event->status));
  const v1::EventConfig c = FromJson<v1::EventConfig>(event->config);
  std::vector<EntrantRow> entrants = store_->ListEntrants(event->id);
  if (r.names().empty()) return absl::InvalidArgumentError("give at least one name");
  v1::RegisterRosterResponse out;
  // With skip_existing, the names that joined already are left out (and
  // listed); every other name is checked as before.
  std::vector<std::string> names;
  for (const std::string& name : r.names()) {
    const bool joined = std::any_of(entrants.begin(), entrants.end(), [&](const EntrantRow& e) {
      return SamePersonName(e.name, name);
    });
    if (joined && r.skip_existing()) {
      out.add_skipped(name);
      continue;
    }
    names.push_back(name);
  }
  if (static_cast<int>(entrants.size() + names.size()) > c.max_entrants())
    return absl::ResourceExhaustedError(absl::StrCat(
        "the event takes ", c.max_entrants(), " entrants; it has ", entrants.size(), " and ",
        names.size(), " more would not fit"));
  // All or nothing: every name checked before any is stored.
  std::vector<std::string> seen;
  for (const std::string& name : names) {
    if (absl::Status s = CheckPersonName(absl::StrCat("the name '", ForTerminal(name, 40), "'"), name, 64);
        !s.ok())
      return s;
    for (const EntrantRow& e : entrants)
      if (SamePersonName(e.name, name))
        return absl::AlreadyExistsError(absl::StrCat(
            "'", e.name, "' has joined already (--skip_existing registers the others)"));
    for (const std::string& other : seen)
      if (SamePersonName(other, name))
        return absl::InvalidArgumentError(absl::StrCat("'", name, "' is on the list twice"));
    seen.push_back(name);
  }
  for (const std::string& name : names) {
    absl::StatusOr<std::string> token = NewToken();
    if (!token.ok()) return token.status();
    EntrantRow row;
    row.event_id = event->id;
    row.name = name;
    row.token_hash = HashToken(*token);
    absl::StatusOr<EntrantRow> added = store_->InsertEntrant(row);
    if (!added.ok()) return added.status();
    v1::JoinEventResponse* x = out.add_entrants();
    x->set_event(event->slug);
    x->set_entrant(name);
    x->set_token(*token);
    x->set_connect_line(EntrantConnectLine(event->slug, *token, name, c, options_.public_address, options_.public_tls));
  }
  return out;
}

absl::StatusOr<v1::JoinEventResponse> Scheduler::ReissueEntrantToken(
    const v1::ReissueEntrantTokenRequest& r) {
  absl::StatusOr<EventRow> event = EventForOrganiser(r.slug(), r.organiser_token());
  if (!event.ok()) return event.status();
  for (EntrantRow& e : store_->ListEntrants(event->id)) {
    if (!absl::EqualsIgnoreCase(e.name, r.entrant())) continue;
    absl::StatusOr<std::string> token = NewToken();
    if (!token.ok()) return token.status();
    e.token_hash = HashToken(*token);
    if (absl::Status s = store_->UpdateEntrant(e); !s.ok()) return s;
    v1::JoinEventResponse out;
    out.set_event(event->slug);
    out.set_entrant(e.name);
    out.set_token(*token);
    out.set_connect_line(EntrantConnectLine(event->slug, *token, e.name, FromJson<v1::EventConfig>(event->config),
                                         options_.public_address, options_.public_tls));
    return out;
  }
  return absl::NotFoundError(absl::StrCat("no entrant named '", r.entrant(), "' in '", r.slug(), "'"));
}

absl::StatusOr<v1::EventInfo> Scheduler::EnterHouseBot(const v1::EnterHouseBotRequest& r) {
  absl::StatusOr<EventRow> event = EventForOrganiser(r.slug(), r.organiser_token());
  if (!event.ok()) return event.status();
  if (event->status != "open" && event->status != "upcoming")
    return absl::FailedPreconditionError(
        absl::StrCat("entries of '", r.slug(), "' are closed (", event->status, ")"));
  absl::StatusOr<BotRow> bot = store_->FindBot(r.bot());
  if (!bot.ok()) return bot.status();
  if (bot->retired) return absl::FailedPreconditionError(absl::StrCat("bot '", r.bot(), "' is retired"));
  // Only a bot registered directly (an entrant's bot belongs to its own
  // event), and only with its owner's agreement: the bot's token (the
  // organiser registered it, or its owner gave it), or the arena's admin
  // token (the arena's own reference bots).
  if (bot->event_id != 0)
    return absl::FailedPreconditionError(absl::StrCat(
        "bot '", r.bot(), "' is an entrant's bot of another event: it plays only there"));
  if (!IsAdminToken(r.organiser_token()) &&
      (r.bot_token().empty() ||
       !transport::ConstantTimeEquals(HashToken(r.bot_token()), bot->token_hash)))
    return absl::PermissionDeniedError(absl::StrCat(
        "entering bot '", r.bot(), "' needs its token (your own bot's, or one its owner gave you)"));
  const v1::EventConfig c = FromJson<v1::EventConfig>(event->config);
  if (c.hosted_only() && bot->endpoint != kHostedEndpoint)
    return absl::FailedPreconditionError(
        absl::StrCat("'", r.slug(), "' takes hosted bots only; bot '", r.bot(), "' is not hosted"));
  if (std::none_of(c.variants().begin(), c.variants().end(), [&](const std::string& v) {
        return std::find(bot->variants.begin(), bot->variants.end(), v) != bot->variants.end();
      }))
    return absl::InvalidArgumentError(absl::StrCat("bot '", r.bot(), "' plays none of ",
                                                   absl::StrJoin(c.variants(), ", ")));
  if (absl::Status s = store_->EnterBot({event->id, bot->id, 0, false, ""}); !s.ok()) return s;
  return EventInfoOf(*event, false);
}

absl::StatusOr<v1::EventInfo> Scheduler::WithdrawBot(const v1::WithdrawBotRequest& r) {
  absl::StatusOr<EventRow> event = store_->GetEvent(r.slug());
  if (!event.ok()) return event.status();
  absl::StatusOr<BotRow> bot = store_->FindBot(r.bot());
  if (!bot.ok()) return bot.status();
  std::optional<EventBotRow> entry;
  for (const EventBotRow& e : store_->EventBots(event->id))
    if (e.bot_id == bot->id) entry = e;
  if (!entry) return absl::NotFoundError(absl::StrCat("bot '", r.bot(), "' is not in '", r.slug(), "'"));
  // The bot's owner (its token) may always withdraw it, frozen or not: it was
  // entered by another's door (EnterHouseBot) or by the owner's own.
  const bool owner = !r.token().empty() &&
                     transport::ConstantTimeEquals(HashToken(r.token()), bot->token_hash);
  bool allowed = owner || EventForOrganiser(r.slug(), r.token()).ok();
  if (!allowed && entry->entrant_id != 0 && !r.token().empty())
    for (const EntrantRow& e : store_->ListEntrants(event->id))
      if (e.id == entry->entrant_id && transport::ConstantTimeEquals(HashToken(r.token()), e.token_hash))
        allowed = true;
  if (!allowed)
    return absl::PermissionDeniedError(
        "withdrawing a bot needs its own token, the organiser's, or its entrant's");
  if (!owner && (event->status == "frozen" || event->status == "finished"))
    return absl::FailedPreconditionError(absl::StrCat("the entries of '", r.slug(), "' are frozen"));
  entry->withdrawn = true;
  if (absl::Status s = store_->EnterBot(*entry); !s.ok()) return s;
  return EventInfoOf(*event, false);
}

absl::StatusOr<v1::ExportEventResponse> Scheduler::ExportEvent(const v1::ExportEventRequest& r) {
  absl::StatusOr<EventRow> event = EventForOrganiser(r.slug(), r.organiser_token());
  if (!event.ok()) return event.status();
  if (r.format() != "csv" && r.format() != "json")
    return absl::InvalidArgumentError("the format is 'csv' or 'json'");
  v1::EventInfo info = EventInfoOf(*event, true);
  v1::EventRosterRequest rr;
  rr.set_slug(r.slug());
  rr.set_organiser_token(r.organiser_token());
  absl::StatusOr<v1::EventRosterResponse> roster = EventRoster(rr);
  if (!roster.ok()) return roster.status();
  std::map<std::string, std::string> entrant_of_bot;
  for (const v1::EventEntrant& e : roster->entrants())
    for (const v1::BotInfo& b : e.bots()) entrant_of_bot[b.name()] = e.name();
  // The ladders' last standings, per variant.
  std::vector<std::pair<std::string, v1::LeaderboardResponse>> boards;
  for (const std::string& v : info.config().variants()) {
    absl::StatusOr<v1::LeaderboardResponse> b = Leaderboard(v, r.slug());
    if (b.ok()) boards.push_back({v, *b});
  }
  v1::ExportEventResponse out;
  if (r.format() == "json") {
    json j;
    j["event"] = {{"slug", event->slug}, {"name", info.config().name()}, {"status", info.status()},
                  {"frozen_at", info.frozen_at()}, {"final_tournament_id", info.final_tournament_id()}};
    j["final"] = json::array();
    for (const v1::EventStanding& s : info.results())
      j["final"].push_back({{"place", s.place()}, {"bot", s.bot()}, {"entrant", s.entrant()},
                            {"mean_per_hand", s.mean()}, {"ci95", s.ci95()}, {"hands", s.hands()},
                            {"total", s.total()}, {"frozen", s.frozen()},
                            {"deals", s.deals()}, {"faults", s.faults()},
                            {"matches", s.matches()}, {"absent_matches", s.absent_matches()},
                            {"version_played", s.version()}, {"last_upload", s.last_upload()},
                            {"note", s.note()}, {"margin_place", s.margin_place()},
                            {"unseparated_from_next", s.unseparated_from_next()},
                            {"margin", {{"mu", s.margin().mu()}, {"sigma", s.margin().sigma()},
                                        {"low", s.margin().low()}, {"high", s.margin().high()},
                                        {"deals", s.margin().deals()}}}});
    j["final_status"] = info.status() == "finished" ? "final"
                        : info.final_tournament_id() ? "provisional: the final is running"
                                                     : "no final yet";
    j["left_out"] = json::array();
    for (const v1::EventLeftOut& x : info.left_out())
      j["left_out"].push_back({{"bot", x.bot()}, {"entrant", x.entrant()}, {"reason", x.reason()}});
    j["pairs"] = json::array();
    for (const v1::EventPair& p : info.pairs())
      j["pairs"].push_back({{"a", p.a()}, {"b", p.b()}, {"matches_together", p.matches_together()},
                            {"a_with", p.a_with()}, {"a_without", p.a_without()},
                            {"b_with", p.b_with()}, {"b_without", p.b_without()},
                            {"joint_gain", p.joint_gain()}});
    j["ladders"] = json::object();
    for (const auto& [v, b] : boards) {
      json rows = json::array();
      for (const v1::LeaderboardEntry& e : b.entries()) {
        if (b.rating_model() == "margin") {
          // Points (chips) a deal with the 95% interval and the deals it rests on.
          const v1::MarginRatingInfo& m = e.margin();
          rows.push_back({{"rank", e.rank()}, {"bot", e.bot()}, {"entrant", entrant_of_bot[e.bot()]},
                          {"rating_model", "margin"}, {"unit", b.unit()}, {"mu", m.mu()},
                          {"sigma", m.sigma()}, {"low", m.low()}, {"high", m.high()},
                          {"deals", m.deals()}, {"sets", m.sets()},
                          {"unseparated_from_next", e.unseparated_from_next()}});
        } else {
          rows.push_back({{"rank", e.rank()}, {"bot", e.bot()}, {"entrant", entrant_of_bot[e.bot()]},
                          {"rating_model", "place"}, {"rating", e.rating().display()},
                          {"mu", e.rating().mu()}, {"sigma", e.rating().sigma()},
                          {"matches", e.rating().matches()}});
        }
      }
      j["ladders"][v] = rows;
    }
    j["roster"] = json::array();
    for (const v1::EventEntrant& e : roster->entrants()) {
      json bots = json::array();
      for (const v1::BotInfo& b : e.bots())
        bots.push_back({{"name", b.name()}, {"health", b.health()}});
      j["roster"].push_back({{"name", e.name()}, {"joined_at", e.joined_at()},
                             {"updated_at", e.updated_at()}, {"bots", bots}});
    }
    out.set_content_type("application/json");
    out.set_body(j.dump(2) + "\n");
    return out;
  }
  // One table, one row per bot of the event (and per entrant with none):
  // its final, its ladder in the final's variant, its entrant. The columns
  // are kEventExportColumns, documented in docs/events.md.
  const std::string final_variant = info.config().variants(0);
  const std::string final_status =
      info.status() == "finished" ? "final"
      : info.final_tournament_id() ? "provisional: the final is running"
                                   : "no final yet";
  std::map<std::string, const v1::EventStanding*> standing_of;
  for (const v1::EventStanding& s : info.results()) standing_of[s.bot()] = &s;
  std::map<std::string, const v1::EventLeftOut*> left_out_of;
  for (const v1::EventLeftOut& x : info.left_out()) left_out_of[x.bot()] = &x;
  const v1::LeaderboardResponse* board = nullptr;
  for (const auto& [v, b] : boards)
    if (v == final_variant) board = &b;
  std::string csv = absl::StrCat(absl::StrJoin(kEventExportColumns, ","), "\n");
  auto f3 = [](double x) { return absl::StrFormat("%.3f", x); };
  auto row_of = [&](const std::string& entrant, const std::string& joined, const std::string& changed,
                    const v1::BotInfo* bot) {
    std::vector<std::string> cells(kEventExportColumns.size());
    auto set = [&](absl::string_view column, const std::string& value) {
      for (size_t i = 0; i < kEventExportColumns.size(); ++i)
        if (kEventExportColumns[i] == column) cells[i] = CsvField(value);
    };
    set("entrant", entrant);
    set("joined", joined);
    std::string last_change = changed;
    if (bot) {
      set("bot", bot->name());
      set("health", bot->health());
      set("final_status", final_status);
      if (auto x = left_out_of.find(bot->name()); x != left_out_of.end())
        set("final_status", absl::StrCat("left out: ", x->second->reason()));
      int final_faults = 0;
      if (auto it = standing_of.find(bot->name()); it != standing_of.end()) {
        const v1::EventStanding& s = *it->second;
        set("final_place", absl::StrCat(s.place()));
        if (s.margin_place()) {
          set("final_margin_place", absl::StrCat(s.margin_place()));
          set("final_margin", f3(s.margin().mu()));
          set("final_margin_ci95", f3((s.margin().high() - s.margin().low()) / 2));
          set("final_unseparated_from_next", s.unseparated_from_next() ? "yes" : "no");
        }
        set("final_mean", f3(s.mean()));
        set("final_mean_ci95", f3(s.ci95()));
        set("final_deals", absl::StrCat(s.deals()));
        set("final_faults", absl::StrCat(s.faults()));
        set("final_absent_matches", absl::StrCat(s.absent_matches()));
        set("frozen", s.frozen() ? "frozen" : "unfrozen");
        set("version_played", s.version());
        set("note", s.note());
        final_faults = s.faults();
      }
      if (board)
        for (const v1::LeaderboardEntry& e : board->entries()) {
          if (e.bot() != bot->name()) continue;
          set("ladder_rank", absl::StrCat(e.rank()));
          set("ladder_model", board->rating_model());
          if (board->rating_model() == "margin") {
            set("ladder_score", f3(e.margin().mu()));
            set("ladder_ci95_or_sigma", f3((e.margin().high() - e.margin().low()) / 2));
            set("ladder_deals_or_matches", absl::StrCat(e.margin().deals()));
          } else {
            set("ladder_score", f3(e.rating().display()));
            set("ladder_ci95_or_sigma", f3(e.rating().sigma()));
            set("ladder_deals_or_matches", absl::StrCat(e.rating().matches()));
          }
        }
      // Faults in the final's variant outside the final: its ladder's (a
      // house bot's also counts its other matches in the variant).
      absl::StatusOr<BotRow> row = store_->FindBot(bot->name());
      if (row.ok()) {
        for (const BotVariantStatsRow& st : store_->BotStats(row->id))
          if (st.variant == final_variant)
            set("ladder_faults", absl::StrCat(std::max(0, st.sums.faults - final_faults)));
        for (const VersionRow& v : store_->ListVersions(row->id)) {  // newest first
          set("last_upload", v.uploaded_at);
          set("last_upload_status", v.status);
          last_change = std::max(last_change, v.uploaded_at);
          break;
        }
      }
    }
    set("last_changed", last_change);
    absl::StrAppend(&csv, absl::StrJoin(cells, ","), "\n");
  };
  for (const v1::EventEntrant& e : roster->entrants()) {
    if (e.bots().empty()) row_of(e.name(), e.joined_at(), e.updated_at(), nullptr);
    for (const v1::BotInfo& b : e.bots()) row_of(e.name(), e.joined_at(), e.updated_at(), &b);
  }
  for (const v1::BotInfo& b : roster->house_bots()) row_of("", "", "", &b);
  out.set_content_type("text/csv; charset=utf-8");
  out.set_body(csv);
  return out;
}

absl::StatusOr<v1::EventInfo> Scheduler::CloseEvent(const v1::CloseEventRequest& r) {
  // Not beside a tick of the schedule: a tick that read the event open would
  // start its ladders again and store it open over the close.
  absl::MutexLock tick(&event_tick_mu_);
  absl::StatusOr<EventRow> event = EventForOrganiser(r.slug(), r.organiser_token());
  if (!event.ok()) return event.status();
  if (event->status == "closed") return EventInfoOf(*event, true);
  {
    // (The config outlives the loop: a range over a temporary's member would not.)
    const v1::EventConfig config = FromJson<v1::EventConfig>(event->config);
    absl::MutexLock lock(&mu_);
    for (const std::string& v : config.variants())
      if (ladders_.count(RatingPool(v, event->id))) StopLadderLocked(RatingPool(v, event->id)).IgnoreError();
  }
  event->status = "closed";
  if (absl::Status s = store_->UpdateEvent(*event); !s.ok()) return s;
  return EventInfoOf(*event, true);
}

// ---------------------------------------------------------------------------
// The schedule.

std::string Scheduler::AbsentFromFinal(const BotRow& bot, absl::Time now, absl::Duration window) {
  const std::string minutes = absl::StrCat(absl::ToInt64Minutes(window), " min");
  if (ThroughGateway(bot.endpoint)) {
    const absl::Time last = dial_in_ ? dial_in_->LastOnline(bot.id) : absl::InfinitePast();
    if (last == absl::InfiniteFuture() || last >= now - window) return "";
    if (last == absl::InfinitePast())
      return bot.endpoint == kHostedEndpoint
                 ? "no bot host has played it since the arena started (no version ready, or no host)"
                 : "not connected since the arena started";
    return absl::StrCat("offline since ", absl::FormatTime("%H:%M:%S UTC", last, absl::UTCTimeZone()),
                        " (more than ", minutes, ")");
  }
  if (!health_.Benched(bot.id)) return "";
  const BotHealthState h = health_.Of(bot.id);
  if (h.since >= now - window) return "";
  return absl::StrCat(h.state, " since ", absl::FormatTime("%H:%M:%S UTC", h.since, absl::UTCTimeZone()),
                      " (more than ", minutes, ")", h.last_error.empty() ? "" : ": ",
                      h.last_error.substr(0, 120));
}

bool Scheduler::HeldAtFreeze(int64_t bot_id) {
  bool frozen = false;
  for (const EventBotRow& e : store_->EventsOfBot(bot_id)) {
    if (e.withdrawn) continue;
    absl::StatusOr<EventRow> event = store_->EventById(e.event_id);
    if (event.ok() && event->status == "frozen") frozen = true;
  }
  return frozen && !store_->ListVersions(bot_id).empty();
}

void Scheduler::StartFinal(EventRow& event) {
  v1::EventConfig c = FromJson<v1::EventConfig>(event.config);
  auto note = [&](const std::string& text) {
    c.set_note(text);
    event.config = ToJson(c);
  };
  const std::string variant = c.variants(0);
  absl::StatusOr<VariantInfo> info = Registry::Global().Info(variant);
  std::vector<int64_t> entrant_of;
  std::vector<BotRow> field = EventField(event.id, &entrant_of);
  // Bots that do not play the final's variant sit it out.
  std::vector<BotRow> playing;
  std::vector<int64_t> playing_entrant;
  for (size_t i = 0; i < field.size(); ++i)
    if (std::find(field[i].variants.begin(), field[i].variants.end(), variant) != field[i].variants.end()) {
      playing.push_back(field[i]);
      playing_entrant.push_back(entrant_of[i]);
    }
  if (!info.ok()) {
    note("the final's variant is unknown");
    event.status = "finished";
    return;
  }
  // Bots not online within the presence window sit the final out: the
  // design is made for the bots that will play, the others are listed.
  {
    std::map<int64_t, std::string> entrant_names;
    for (const EntrantRow& e : store_->ListEntrants(event.id)) entrant_names[e.id] = e.name;
    const absl::Time now = absl::Now();
    c.clear_final_left_out();
    std::vector<BotRow> present;
    std::vector<int64_t> present_entrant;
    for (size_t i = 0; i < playing.size(); ++i) {
      const std::string why = AbsentFromFinal(playing[i], now, PresenceWindow(c));
      if (why.empty()) {
        present.push_back(playing[i]);
        present_entrant.push_back(playing_entrant[i]);
        continue;
      }
      v1::EventLeftOut* x = c.add_final_left_out();
      x->set_bot(playing[i].name);
      x->set_entrant(playing_entrant[i] ? entrant_names[playing_entrant[i]] : "");
      x->set_reason(why);
      logging::Warning("events", "bot left out of the final",
                       {{"event", event.slug}, {"bot", playing[i].name}, {"reason", why}});
    }
    playing = std::move(present);
    playing_entrant = std::move(present_entrant);
    event.config = ToJson(c);
  }
  const std::string left_out =
      c.final_left_out_size() == 0
          ? std::string()
          : absl::StrCat("; ", c.final_left_out_size(),
                         c.final_left_out_size() == 1 ? " bot" : " bots", " left out (offline)");
  const int hands = c.hands_per_match() ? c.hands_per_match() : 2 * info->num_seats;
  FinalDesignOptions o;
  o.seats = info->num_seats;
  o.appearances_per_bot = AppearancesFor(c, hands);
  o.max_groups = std::max(1, c.final_match_budget() / info->num_seats);
  absl::StatusOr<uint64_t> seed = net::SecureRandomSeed();
  o.seed = seed.ok() ? *seed : 0;
  absl::StatusOr<FinalDesign> design = MakeFinalDesign(playing_entrant, o);
  if (!design.ok()) {
    note(absl::StrCat("no final: ", design.status().message(), left_out));
    event.status = "finished";
    return;
  }
  v1::RunTournamentRequest r;
  r.set_variant(variant);
  r.set_deals(1);
  r.set_hands_per_match(hands);
  *r.mutable_time_control() = c.time_control();
  *r.mutable_fault_policy() = c.fault_policy();
  r.set_name(absl::StrCat(c.name(), ": final"));
  r.set_event(event.slug);
  absl::StatusOr<v1::TournamentInfo> t =
      ScheduleTournament(r, playing, design->groups, "final", event.id);
  if (!t.ok()) {
    note(absl::StrCat("no final: ", t.status().message()));
    event.status = "finished";
    return;
  }
  event.final_tournament_id = t->id();
  // Groups with a hosted bot never meet a deal twice (One kernel per deal):
  // their seatings are bridged or dealt fresh (tournaments.cc).
  const std::string hosted_deals =
      t->bridged_deals() + t->single_table_deals() == 0
          ? std::string()
          : absl::StrCat("; groups with a hosted bot meet no deal twice: ", t->bridged_deals(),
                         " deals at two tables of groups with no bot in common, ",
                         t->single_table_deals(), " at one table (the final's page says why)");
  // Every bot sits in appearances_per_bot groups or one more (event_design.h).
  std::map<int, int> groups_of;
  for (const std::vector<int>& g : design->groups)
    for (int b : g) ++groups_of[b];
  int most = design->appearances_per_bot;
  for (const auto& [bot, n] : groups_of) most = std::max(most, n);
  const std::string deals =
      most == design->appearances_per_bot
          ? absl::StrCat(design->appearances_per_bot * hands)
          : absl::StrCat(design->appearances_per_bot * hands, " or ", most * hands);
  note(absl::StrCat("final: ", design->groups.size(), " tables of ", info->num_seats, " in every seating (",
                    t->matches_total(), " matches), ", deals, " deals a bot", hosted_deals, left_out));
}

void Scheduler::EventTick(absl::Time now) {
  absl::MutexLock tick(&event_tick_mu_);
  for (EventRow& event : store_->ListEvents()) {
    const std::string before = event.status;
    const int64_t final_before = event.final_tournament_id;
    const std::string config_before = event.config;
    const v1::EventConfig c = FromJson<v1::EventConfig>(event.config);
    const Schedule sched = ScheduleOf(c);
    if (event.status == "upcoming" && now >= sched.opens) event.status = "open";
    if (event.status == "open") {
      if (now >= sched.deadline) {
        // The deadline: entries freeze, the ladders stop, the final starts.
        {
          absl::MutexLock lock(&mu_);
          for (const std::string& v : c.variants())
            if (ladders_.count(RatingPool(v, event.id)))
              StopLadderLocked(RatingPool(v, event.id)).IgnoreError();
        }
        event.status = "frozen";
        event.frozen_at = Utc(now);
      } else {
        // Each ladder plays what today's field allows (PlanEventLadder):
        // duplicate sets rated on margins once it fills a set, matches rated
        // on places until then. A ladder whose plan changed (the field grew
        // or shrank past a set) is stopped and one of the other kind started:
        // both histories are kept, neither is recomputed.
        const std::vector<BotRow> field = EventField(event.id);
        std::map<std::string, v1::EventLadder> plans;
        for (const std::string& v : c.variants()) plans[v] = PlanEventLadder(field, v);
        absl::MutexLock lock(&mu_);
        for (const std::string& v : c.variants()) {
          const v1::EventLadder& plan = plans[v];
          const bool margin = plan.rating_model() == "margin";
          auto running = ladders_.find(RatingPool(v, event.id));
          if (running != ladders_.end()) {
            if ((running->second.model == RatingModelKind::kMargin) == margin) continue;
            StopLadderLocked(RatingPool(v, event.id)).IgnoreError();
          }
          v1::LadderConfig lc;
          lc.set_variant(v);
          lc.set_event(event.slug);
          lc.set_hands_per_match(c.hands_per_match());
          lc.set_separate_owners(true);
          lc.set_format(plan.format());
          lc.set_rating_model(plan.rating_model());
          *lc.mutable_time_control() = c.time_control();
          *lc.mutable_fault_policy() = c.fault_policy();
          StartLadderLocked(lc, event.id, c.weight()).IgnoreError();
        }
      }
    }
    if (event.status == "frozen") {
      if (event.final_tournament_id == 0) {
        // A final made before a crash that kept it from being recorded here.
        for (const TournamentSummaryRow& t : store_->ListTournaments(100000))
          if (FromJson<v1::RunTournamentRequest>(t.tournament.config).event() == event.slug)
            event.final_tournament_id = t.tournament.id;
      }
      if (event.final_tournament_id == 0) {
        StartFinal(event);
      } else {
        absl::StatusOr<v1::TournamentInfo> t = GetTournament(event.final_tournament_id);
        if (t.ok() && t->finished()) event.status = "finished";
      }
    }
    if (event.status != before || event.final_tournament_id != final_before ||
        event.config != config_before)
      store_->UpdateEvent(event).IgnoreError();
  }
}

}  // namespace tarock::arena
