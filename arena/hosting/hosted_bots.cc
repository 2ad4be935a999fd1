#include "arena/hosting/hosted_bots.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "arena/scheduler/dial_in.h"
#include "referee/net/secure_random.h"

namespace tarock::arena {

HostedBots::HostedBots(Store* store, HostingOptions options)
    : store_(store), options_(std::move(options)) {}

absl::StatusOr<BotRow> HostedBots::OwnedBot(const std::string& bot, const std::string& token) {
  absl::StatusOr<BotRow> row = store_->FindBot(bot);
  if (!row.ok()) return absl::NotFoundError(absl::StrCat("no bot named '", bot.substr(0, 64), "'"));
  if (token.empty() || HashToken(token) != row->token_hash)
    return absl::PermissionDeniedError("wrong token for this bot");
  return row;
}

absl::Status HostedBots::CheckUploadStorage(const BotRow& bot, int64_t bytes) {
  return CheckStorage(*store_, options_.storage, bot.owner, bot.client_net, 0, 1, bytes);
}

std::optional<VersionRow> HostedBots::SameAsCurrent(const BotRow& bot, const std::string& filename,
                                                    const std::string& content,
                                                    const std::string& kind,
                                                    const std::string& entry) {
  const std::vector<VersionRow> versions = store_->ListVersions(bot.id);
  if (versions.empty()) return std::nullopt;
  const VersionRow& newest = versions.front();
  if (newest.status != "building" && newest.status != "ready") return std::nullopt;
  // Cheap tests first: the size and the stored file name; then the package
  // as parsed (its SHA-256, and the kind and entry the request resolves to).
  if (newest.size != static_cast<int64_t>(content.size()) ||
      newest.filename != filename.substr(filename.rfind('/') + 1).substr(0, 200))
    return std::nullopt;
  absl::StatusOr<bothost::Package> p =
      bothost::ParsePackage(filename, content, kind, entry, options_.package);
  if (!p.ok() || p->sha256 != newest.sha256 || p->kind != newest.kind ||
      p->entry != newest.entry || p->interpreter != newest.interpreter)
    return std::nullopt;
  return newest;
}

absl::StatusOr<VersionRow> HostedBots::Upload(const std::string& bot, const std::string& token,
                                              const std::string& filename,
                                              const std::string& content, const std::string& kind,
                                              const std::string& entry,
                                              bool reset_rating, std::string* unchanged_note) {
  if (unchanged_note != nullptr) unchanged_note->clear();
  absl::StatusOr<BotRow> row = OwnedBot(bot, token);
  if (!row.ok()) return row.status();
  if (row->retired) return absl::FailedPreconditionError("the bot is retired");
  if (!ThroughGateway(row->endpoint))
    return absl::FailedPreconditionError(
        "the bot has an endpoint: a hosted bot is registered without one (bots add NAME --hosted)");
  if (std::optional<VersionRow> same = SameAsCurrent(*row, filename, content, kind, entry)) {
    if (reset_rating) {
      if (absl::Status s = store_->ResetRatings(row->id); !s.ok()) return s;
    }
    if (unchanged_note != nullptr)
      *unchanged_note = absl::StrCat("unchanged: the upload is byte-identical to version ",
                                     same->id, " (", same->status,
                                     "), the bot's current version; nothing new was stored");
    if (same->status == "building" && same->build_log.empty() && !AnyHostConnected())
      same->build_log = kNoHostNote;
    return *same;
  }
  if (store_->CountVersionsSince(row->id, 3600) >= options_.uploads_per_hour)
    return absl::ResourceExhaustedError(absl::StrCat(
        "more than ", options_.uploads_per_hour, " uploads of this bot in the last hour: wait"));
  if (absl::Status s = CheckUploadStorage(*row, static_cast<int64_t>(content.size())); !s.ok())
    return s;
  absl::StatusOr<bothost::Package> package =
      bothost::ParsePackage(filename, content, kind, entry, options_.package);
  if (!package.ok()) return package.status();
  VersionRow v;
  v.bot_id = row->id;
  v.bot = row->name;
  v.kind = package->kind;
  v.entry = package->entry;
  v.interpreter = package->interpreter;
  v.filename = filename.substr(filename.rfind('/') + 1).substr(0, 200);
  v.sha256 = package->sha256;
  v.size = package->size;
  v.content = absl::Base64Escape(content);
  absl::StatusOr<int64_t> id = store_->AddVersion(v, options_.versions_kept);
  if (!id.ok()) return id.status();
  if (reset_rating) {
    if (absl::Status s = store_->ResetRatings(v.bot_id); !s.ok()) return s;
  }
  v.content.clear();
  v.content.shrink_to_fit();
  VersionRow stored = store_->GetVersionInfo(*id).value_or(v);
  if (stored.status == "building" && stored.build_log.empty() && !AnyHostConnected())
    stored.build_log = kNoHostNote;
  return stored;
}

absl::StatusOr<std::vector<VersionRow>> HostedBots::Versions(const std::string& bot,
                                                             const std::string& token, bool* owner) {
  absl::StatusOr<BotRow> row = store_->FindBot(bot);
  if (!row.ok()) return absl::NotFoundError(absl::StrCat("no bot named '", bot.substr(0, 64), "'"));
  *owner = !token.empty() && HashToken(token) == row->token_hash;
  std::vector<VersionRow> versions = store_->ListVersions(row->id);
  if (!*owner)
    for (VersionRow& v : versions) v.build_log.clear();
  if (!AnyHostConnected())
    for (VersionRow& v : versions)
      if (v.status == "building" && v.build_log.empty()) v.build_log = kNoHostNote;
  return versions;
}

absl::StatusOr<std::string> HostedBots::AddHost(const std::string& name) {
  if (name.empty() || name.size() > 64)
    return absl::InvalidArgumentError("a host name has 1 to 64 characters");
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      return absl::InvalidArgumentError("a host name has letters, digits, '-', '_' and '.' only");
  absl::StatusOr<std::string> token = net::SecureRandomHex(32);
  if (!token.ok()) return token.status();
  HostRow host;
  host.name = name;
  host.token_hash = HashToken(*token);
  absl::StatusOr<int64_t> id = store_->AddHost(host);
  if (!id.ok()) return id.status();
  return *token;
}

absl::StatusOr<HostRow> HostedBots::AuthenticateHost(const std::string& token) {
  if (token.empty() || token.size() > 256) return absl::UnauthenticatedError("no host token");
  std::optional<HostRow> host = store_->FindHostByTokenHash(HashToken(token));
  if (!host) return absl::UnauthenticatedError("no host of this arena has this token");
  return *host;
}

bool HostedBots::HeldBy(int64_t bot_id, int64_t host_id, absl::Time now) {
  auto it = holders_.find(bot_id);
  return it != holders_.end() && it->second.host_id == host_id &&
         now - it->second.seen <= options_.host_lease;
}

bool HostedBots::Given(int64_t bot_id, int64_t id, int64_t host_id, absl::Time now) {
  if (!HeldBy(bot_id, host_id, now)) return false;
  const std::vector<int64_t>& given = holders_[bot_id].given;
  return std::find(given.begin(), given.end(), id) != given.end();
}

bool HostedBots::AnyHostConnected() {
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  for (const auto& [id, seen] : host_seen_)
    if (now - seen <= options_.host_lease) return true;
  return false;
}

std::vector<HostedBots::Held> HostedBots::Sync(const HostRow& host, int capacity) {
  const absl::Time now = absl::Now();
  {
    absl::MutexLock lock(&mu_);
    host_seen_[host.id] = now;
  }
  std::map<int64_t, Held> by_bot;
  for (VersionRow& v : store_->ListVersions(0)) {  // newest first
    Held& h = by_bot[v.bot_id];
    if (v.status == "ready" && !h.ready) h.ready = v;
    if ((v.status == "ready" || v.status == "building") && !h.newest) h.newest = v;
  }
  // Events whose entries are frozen (their final runs, events.cc): a bot in
  // one plays the newest version that was ready at the freeze, and no newer
  // one is built or played until the final is over.
  for (auto& [bot_id, h] : by_bot) {
    std::string cutoff;
    for (const EventBotRow& e : store_->EventsOfBot(bot_id)) {
      if (e.withdrawn) continue;  // its owner took it out: not frozen there
      absl::StatusOr<EventRow> event = store_->EventById(e.event_id);
      if (event.ok() && event->status == "frozen" && !event->frozen_at.empty() &&
          (cutoff.empty() || event->frozen_at < cutoff))
        cutoff = event->frozen_at;
    }
    if (cutoff.empty()) continue;
    h.ready.reset();
    for (const VersionRow& v : store_->ListVersions(bot_id))  // newest first
      if (v.status == "ready" && !v.ready_at.empty() && v.ready_at <= cutoff) {
        h.ready = v;
        break;
      }
    h.newest = h.ready;
  }
  std::vector<Held> out;
  absl::MutexLock lock(&mu_);
  int held = 0;
  for (auto& [bot_id, h] : by_bot) {
    if (!h.newest && !h.ready) continue;
    absl::StatusOr<BotRow> bot = store_->BotById(bot_id);
    if (!bot.ok() || bot->retired || !ThroughGateway(bot->endpoint)) continue;
    auto it = holders_.find(bot_id);
    const bool mine = it != holders_.end() && it->second.host_id == host.id;
    const bool free = it == holders_.end() || now - it->second.seen > options_.host_lease;
    if (!mine && !free) continue;
    if (capacity > 0 && held >= capacity) continue;
    // The versions given: those of every sync since this host took the bot
    // (a build given by one sync is reported after the next), the newest 8.
    Holder& holder = holders_[bot_id];
    std::vector<int64_t> given = mine ? std::move(holder.given) : std::vector<int64_t>{};
    holder = Holder{host.id, now, {}};
    for (const std::optional<VersionRow>& v : {h.newest, h.ready})
      if (v && std::find(given.begin(), given.end(), v->id) == given.end()) given.push_back(v->id);
    if (given.size() > 8) given.erase(given.begin(), given.end() - 8);
    holder.given = std::move(given);
    ++held;
    h.bot = *bot;
    if (h.newest) version_bots_[h.newest->id] = bot_id;
    out.push_back(h);
  }
  return out;
}

absl::StatusOr<std::string> HostedBots::FetchPiece(const HostRow& host, int64_t id,
                                                   int64_t offset, int64_t max_bytes,
                                                   VersionRow* version) {
  absl::StatusOr<VersionRow> v = Fetch(host, id);
  if (!v.ok()) return v.status();
  if (offset < 0 || offset % 3 != 0 || (offset > 0 && offset >= v->size))
    return absl::InvalidArgumentError(
        absl::StrCat("offset ", offset, " is not a multiple of 3 below the size ", v->size));
  if (max_bytes <= 0 || max_bytes > kFetchPieceBytes) max_bytes = kFetchPieceBytes;
  max_bytes -= max_bytes % 3;
  if (max_bytes == 0) max_bytes = 3;
  const int64_t want = std::min(max_bytes, v->size - offset);
  // Base64: 3 bytes are 4 characters.
  absl::StatusOr<std::string> text =
      store_->GetVersionContentSlice(id, offset / 3 * 4, (want + 2) / 3 * 4);
  if (!text.ok()) return text.status();
  std::string piece;
  if (v->status == "removed" || !absl::Base64Unescape(*text, &piece) ||
      static_cast<int64_t>(piece.size()) != want)
    return absl::DataLossError("the stored content is damaged or removed");
  if (version != nullptr) *version = std::move(*v);
  return piece;
}

absl::StatusOr<VersionRow> HostedBots::Fetch(const HostRow& host, int64_t id) {
  absl::StatusOr<VersionRow> v = store_->GetVersionInfo(id);
  if (!v.ok()) return v.status();
  absl::MutexLock lock(&mu_);
  if (!HeldBy(v->bot_id, host.id, absl::Now()))
    return absl::PermissionDeniedError("this host does not hold the version's bot");
  if (!Given(v->bot_id, id, host.id, absl::Now()))
    return absl::PermissionDeniedError(
        "this version was not given to this host (only the bot's newest and ready versions, "
        "as the syncs of this host named them)");
  return v;
}

absl::Status HostedBots::ReportSeatLog(const HostRow& host, const std::string& bot,
                                       const std::string& match_id, int seat,
                                       const std::string& log,
                                       std::optional<std::vector<std::pair<int, int>>> slow) {
  absl::StatusOr<BotRow> row = store_->FindBot(bot);
  if (!row.ok()) return absl::NotFoundError("no such bot");
  {
    absl::MutexLock lock(&mu_);
    if (!HeldBy(row->id, host.id, absl::Now()))
      return absl::PermissionDeniedError("this host does not hold the bot");
  }
  absl::StatusOr<MatchRow> match = store_->GetMatch(match_id);
  if (!match.ok()) return absl::NotFoundError("no such match");
  if (seat < 0 || seat >= static_cast<int>(match->bot_ids.size()) ||
      match->bot_ids[seat] != row->id)
    return absl::PermissionDeniedError("the bot does not play that seat");
  if (claim_)
    if (absl::Status s = claim_(match_id, seat, host.id); !s.ok()) return s;
  if (slow && slow->size() <= 4096) {  // a seat has far fewer decisions
    absl::MutexLock lock(&mu_);
    const auto key = std::make_pair(match_id, seat);
    if (auto it = accounts_.find(key); it != accounts_.end()) {
      account_places_ -= it->second.size();
    } else {
      account_order_.push_back(key);
    }
    account_places_ += slow->size();
    accounts_[key] = *std::move(slow);
    while (account_order_.size() > 1 && (account_order_.size() > options_.max_accounts ||
           account_places_ > options_.max_account_places)) {
      auto oldest = accounts_.find(account_order_.front());
      account_places_ -= oldest->second.size();
      accounts_.erase(oldest);
      account_order_.pop_front();
    }
  }
  const std::string kept =
      log.size() > options_.max_seat_log
          ? absl::StrCat("[the first ", log.size() - options_.max_seat_log, " bytes cut]\n",
                         log.substr(log.size() - options_.max_seat_log))
          : log;
  return store_->PutSeatLog(match_id, seat, row->id, kept);
}

absl::StatusOr<HostedBots::SeatLogOut> HostedBots::SeatLogFor(
    const std::string& match_id, const std::string& bot, const std::string& token,
    const std::function<bool(const MatchRow&)>& deal_public) {
  absl::StatusOr<BotRow> row = OwnedBot(bot, token);
  if (!row.ok()) return row.status();
  absl::StatusOr<MatchRow> match = store_->GetMatch(match_id);
  if (!match.ok()) return absl::NotFoundError("no such match");
  int seat = -1;
  for (size_t i = 0; i < match->bot_ids.size(); ++i)
    if (match->bot_ids[i] == row->id) seat = static_cast<int>(i);
  if (seat < 0) return absl::NotFoundError(absl::StrCat(bot, " has no seat in ", match_id));
  if (!deal_public(*match))
    return absl::FailedPreconditionError(
        "the match's deal is still being played at another table (or the match runs): its "
        "standard error is shown once every table of the deal has finished");
  absl::StatusOr<std::string> log = store_->SeatLog(match_id, seat);
  if (!log.ok()) return log.status();
  return SeatLogOut{seat, *std::move(log)};
}

absl::StatusOr<VersionRow> HostedBots::ReportBuild(const HostRow& host, int64_t id, bool ok,
                                                   const std::string& log) {
  absl::StatusOr<VersionRow> v = store_->GetVersion(id);
  if (!v.ok()) return v.status();
  {
    absl::MutexLock lock(&mu_);
    if (!HeldBy(v->bot_id, host.id, absl::Now()))
      return absl::PermissionDeniedError("this host does not hold the version's bot");
    if (!Given(v->bot_id, id, host.id, absl::Now()))
      return absl::PermissionDeniedError("this version was not given to this host to build");
  }
  if (v->status != "building")
    return absl::FailedPreconditionError(absl::StrCat("version ", id, " is ", v->status));
  std::string cut = log.substr(0, options_.max_build_log);
  if (!bothost::IsUtf8(cut)) {
    for (char& c : cut)
      if (static_cast<unsigned char>(c) >= 0x80) c = '?';
  }
  if (absl::Status s = store_->SetVersionStatus(id, ok ? "ready" : "failed", cut); !s.ok()) return s;
  absl::StatusOr<VersionRow> after = store_->GetVersion(id);
  if (after.ok()) after->content.clear();
  return after;
}

absl::StatusOr<std::pair<int64_t, std::string>> HostedBots::AuthenticateHostedBot(
    const std::string& token, const std::string& name, int64_t* host_id) {
  absl::StatusOr<HostRow> host = AuthenticateHost(token);
  if (!host.ok()) return host.status();
  absl::StatusOr<BotRow> bot = store_->FindBot(name);
  if (!bot.ok()) return absl::FailedPreconditionError("no such hosted bot");
  if (bot->retired) return absl::FailedPreconditionError("the bot is retired");
  absl::MutexLock lock(&mu_);
  if (!HeldBy(bot->id, host->id, absl::Now()))
    return absl::FailedPreconditionError("this host does not hold the bot (sync first)");
  if (host_id) *host_id = host->id;
  return std::make_pair(bot->id, bot->name);
}

std::optional<std::vector<std::pair<int, int>>> HostedBots::AwaitSeatAccount(
    const std::string& match_id, int seat, absl::Time deadline) {
  const auto key = std::make_pair(match_id, seat);
  auto reported = [this, &key]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return accounts_.count(key) > 0;
  };
  absl::MutexLock lock(&mu_);
  if (!mu_.AwaitWithDeadline(absl::Condition(&reported), deadline)) return std::nullopt;
  std::vector<std::pair<int, int>> slow = std::move(accounts_[key]);
  account_places_ -= slow.size();
  accounts_.erase(key);
  account_order_.erase(std::find(account_order_.begin(), account_order_.end(), key));
  return slow;
}

bool HostedBots::HostSyncing(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  auto it = holders_.find(bot_id);
  return it != holders_.end() && absl::Now() - it->second.seen <= options_.host_stale;
}

bool HostedBots::VersionOfBot(int64_t id, int64_t bot_id) {
  {
    absl::MutexLock lock(&mu_);
    auto it = version_bots_.find(id);
    if (it != version_bots_.end()) return it->second == bot_id;
  }
  absl::StatusOr<VersionRow> v = store_->GetVersion(id);
  if (!v.ok()) return false;
  absl::MutexLock lock(&mu_);
  version_bots_[id] = v->bot_id;
  return v->bot_id == bot_id;
}

}  // namespace tarock::arena
