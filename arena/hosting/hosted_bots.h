// The arena's side of hosted bots (docs/hosting.md): versions uploaded by a
// bot's owner, bot hosts and which host holds which bot. Plain C++ on the
// store; arena/server/hosting_service.cc is the thin gRPC layer.
//
// The arena never runs what is uploaded: an upload is parsed and checked
// (arena/bothost/package.h), stored as a version "building", and a host
// builds it in its sandbox and reports "ready" or "failed" with the log.
// A hosted bot is a dial-in bot (its seats reach it through the gateway) with
// at least one version; the host that holds it connects to the gateway for it
// with the host's token. Each bot is held by one host at a time: the first
// host to sync takes it, and keeps it while it syncs within `host_lease`; a
// host that stops syncing (it died) loses its bots to the next host that
// syncs.
//
// Thread-safety: thread-safe.

#ifndef TAROCK_ARENA_HOSTING_HOSTED_BOTS_H_
#define TAROCK_ARENA_HOSTING_HOSTED_BOTS_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/bothost/package.h"
#include "arena/store/storage_quota.h"
#include "arena/store/store.h"

namespace tarock::arena {

struct HostingOptions {
  bothost::PackageLimits package;  // upload size (32 MiB), unpacked size (64 MiB), files (256)
  int versions_kept = 5;           // per bot, with their content
  int uploads_per_hour = 20;       // per bot
  absl::Duration host_lease = absl::Seconds(15);  // a host that has not synced this long loses its bots
  absl::Duration sync_every = absl::Seconds(2);   // told to hosts
  // A host that has not synced this long gets no new seats for its bots (they
  // are offline: HostSyncing) until it syncs again; it keeps them (host_lease).
  absl::Duration host_stale = absl::Seconds(6);
  size_t max_build_log = 64 << 10;
  size_t max_seat_log = 64 << 10;  // a seat's standard error kept (its end)
  size_t max_accounts = 4096;      // hosts' accounts of seats kept until the scheduler takes them
  size_t max_account_places = 1 << 18;  // their decisions in all (2 MiB): the oldest go first
  // What one owner and one network may store (storage_quota.h; a version
  // counts for its bot's owner and the network the bot was registered from).
  StorageLimits storage;
};

class HostedBots {
 public:
  // `store` must outlive this.
  HostedBots(Store* store, HostingOptions options = {});

  // The owner uploads a version. Errors: NOT_FOUND (no such bot),
  // PERMISSION_DENIED (wrong token), FAILED_PRECONDITION (retired, or a bot
  // with an endpoint: hosted bots are registered with --dial_in),
  // RESOURCE_EXHAUSTED (uploads per hour, storage bounds: CheckUploadStorage),
  // INVALID_ARGUMENT (the package's
  // one line). Nothing is stored on an error.
  // With `reset_rating` the bot's ratings start again from the prior
  // (Store::ResetRatings) once the version is stored; by default they carry over.
  // An upload byte-identical to the bot's current version (its newest, while
  // building or ready; the same file name, and the same kind, entry and
  // interpreter once parsed) stores nothing and counts against no limit: that
  // version is the answer, and `*unchanged_note` (when given) says so in one
  // line ("" for a new version). `reset_rating` still resets the ratings.
  // A failed newest version is built again from an identical upload.
  absl::StatusOr<VersionRow> Upload(const std::string& bot, const std::string& token,
                                    const std::string& filename, const std::string& content,
                                    const std::string& kind, const std::string& entry,
                                    bool reset_rating = false,
                                    std::string* unchanged_note = nullptr);
  // Whether one more version of `bytes` of `bot` stays within the storage
  // bounds of its owner and of the network it was registered from
  // (CheckStorage): the upload path asks before storing anything.
  // RESOURCE_EXHAUSTED in one line otherwise.
  absl::Status CheckUploadStorage(const BotRow& bot, int64_t bytes);
  // The bot's current version when `content` is byte-identical to it (see
  // Upload), nullopt otherwise.
  std::optional<VersionRow> SameAsCurrent(const BotRow& bot, const std::string& filename,
                                          const std::string& content, const std::string& kind,
                                          const std::string& entry);
  // A bot's versions, newest first; build logs only with the right token
  // (`*owner` says whether it was). While no bot host is connected (none has
  // synced within host_lease), a version still building carries
  // kNoHostNote as its build log (for anyone: it is no secret), and so does
  // the answer of Upload.
  absl::StatusOr<std::vector<VersionRow>> Versions(const std::string& bot, const std::string& token,
                                                   bool* owner);

  // The note on a building version while no bot host is connected.
  static constexpr char kNoHostNote[] =
      "waiting: no bot host is connected to this arena, so nothing builds or plays this "
      "version (its operator starts tarock-bothost with a token from `tarock-arena-cli hosts "
      "add`; docs/hosting.md)";
  // Has any host synced within host_lease?
  bool AnyHostConnected();

  // Issues a host token (returned once). The caller checks the admin token.
  absl::StatusOr<std::string> AddHost(const std::string& name);
  // The host a token belongs to: UNAUTHENTICATED otherwise.
  absl::StatusOr<HostRow> AuthenticateHost(const std::string& token);

  struct Held {
    BotRow bot;
    std::optional<VersionRow> newest;  // building or ready
    std::optional<VersionRow> ready;   // the newest ready
  };
  // A host's sync: renews its lease, takes free bots (up to `capacity`, 0:
  // any), returns every bot it holds. A bot entered in an event whose entries
  // are frozen (its final runs) is held at the newest version that was ready
  // at the freeze: nothing newer is built or played until the final is over.
  std::vector<Held> Sync(const HostRow& host, int capacity);
  // A version's content, for the host that holds its bot and was given that
  // version (the bot's newest or its ready one) by a Sync since it took the
  // bot: PERMISSION_DENIED otherwise (another host's bot, an older version
  // never given: what a stolen host token can fetch is what that host was
  // assigned, no more).
  // The row comes without content; FetchPiece gives the content in pieces:
  // at most `max_bytes` (0 or over kFetchPieceBytes: kFetchPieceBytes) bytes
  // of the upload from byte `offset` (a multiple of 3, below the version's
  // size unless the size is 0; INVALID_ARGUMENT otherwise), so neither the
  // arena nor a message ever holds more than one piece of a large upload.
  // DATA_LOSS when the stored content is damaged or was removed.
  static constexpr int64_t kFetchPieceBytes = int64_t{3} << 19;  // 1.5 MiB
  absl::StatusOr<VersionRow> Fetch(const HostRow& host, int64_t id);
  absl::StatusOr<std::string> FetchPiece(const HostRow& host, int64_t id, int64_t offset,
                                         int64_t max_bytes, VersionRow* version);
  // The holder reports the build of a version a Sync gave it
  // (PERMISSION_DENIED otherwise). FAILED_PRECONDITION when not building.
  absl::StatusOr<VersionRow> ReportBuild(const HostRow& host, int64_t id, bool ok,
                                         const std::string& log);
  // For the gateway: the bot `name` as played by the host with `token`
  // (id, name). UNAUTHENTICATED (no such host), FAILED_PRECONDITION (not
  // hosted, or held by another host).
  // `host_id` (optional) gets the host's id.
  absl::StatusOr<std::pair<int64_t, std::string>> AuthenticateHostedBot(const std::string& token,
                                                                         const std::string& name,
                                                                         int64_t* host_id = nullptr);
  // The host that holds `bot` reports a seat's standard error (the end of
  // it: at most max_seat_log bytes are kept). PERMISSION_DENIED unless the
  // host holds the bot and the bot plays that seat of that match, and (with
  // SetSeatReportClaim) the arena gave that seat's attempt to a connection
  // of this host; ALREADY_EXISTS when this host reported that attempt of the
  // seat already (a report never replaces an earlier one of the same
  // attempt; a new attempt's report replaces the last attempt's log).
  // With `slow`, the host's account of the seat's decisions: those its bot
  // took more than half its time on or never answered, as (hand_index,
  // action_index); kept in memory for AwaitSeatAccount (the newest, within
  // max_accounts and max_account_places; one account of more than 4096
  // decisions is not kept).
  absl::Status ReportSeatLog(const HostRow& host, const std::string& bot,
                             const std::string& match_id, int seat, const std::string& log,
                             std::optional<std::vector<std::pair<int, int>>> slow = std::nullopt);
  // Set before reports arrive (the arena: DialInHub::ClaimSeatReport):
  // whether the host `host_id` may report seat `seat` of `match_id` now, and
  // records that it did. Unset: every seat of a bot the host holds.
  void SetSeatReportClaim(
      std::function<absl::Status(const std::string& match_id, int seat, int64_t host_id)> claim) {
    claim_ = std::move(claim);
  }
  // The host's account of seat `seat` of `match_id` (ReportSeatLog's `slow`):
  // waits for it until `deadline`, and takes it (a second call waits for
  // another). nullopt when none came. For the scheduler, which voids a match
  // whose hosted seat timed out on a decision its bot was not slow on
  // (docs/hosting.md, "A host that stalls").
  std::optional<std::vector<std::pair<int, int>>> AwaitSeatAccount(const std::string& match_id,
                                                                   int seat, absl::Time deadline);
  // The owner reads the bot's standard error in a match (every seat it
  // played there, in seat order). `deal_public`: whether the match's deal may
  // be shown (Scheduler::DealPublic): the log holds the bot's own cards, so
  // it waits until no table of the deal is still being played.
  // PERMISSION_DENIED wrong token, NOT_FOUND no such bot/match/log,
  // FAILED_PRECONDITION the deal is not public yet.
  struct SeatLogOut {
    int seat = 0;
    std::string log;
  };
  absl::StatusOr<SeatLogOut> SeatLogFor(const std::string& match_id, const std::string& bot,
                                        const std::string& token,
                                        const std::function<bool(const MatchRow&)>& deal_public);

  // Whether the host that holds `bot_id` has synced within host_stale (for
  // the gateway: DialInHub::SetHostSyncing). False for a bot no host holds.
  bool HostSyncing(int64_t bot_id);

  // Does version `id` belong to bot `bot_id`? (For the seats that name it.)
  bool VersionOfBot(int64_t id, int64_t bot_id);

  const HostingOptions& options() const { return options_; }

 private:
  struct Holder {
    int64_t host_id = 0;
    absl::Time seen;
    // The versions its syncs gave (newest, ready) since it took the bot, the newest 8.
    std::vector<int64_t> given;
  };
  // Was version `id` of `bot_id` given to `host_id` by a Sync since it took
  // the bot, and does that host still hold it?
  bool Given(int64_t bot_id, int64_t id, int64_t host_id, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<BotRow> OwnedBot(const std::string& bot, const std::string& token);
  bool HeldBy(int64_t bot_id, int64_t host_id, absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Store* store_;
  const HostingOptions options_;
  std::function<absl::Status(const std::string&, int, int64_t)> claim_;  // set before use
  absl::Mutex mu_;
  std::map<int64_t, Holder> holders_ ABSL_GUARDED_BY(mu_);  // by bot id
  std::map<int64_t, absl::Time> host_seen_ ABSL_GUARDED_BY(mu_);  // host id -> its last sync
  std::map<int64_t, int64_t> version_bots_ ABSL_GUARDED_BY(mu_);  // version id -> bot id
  // Hosts' accounts of seats (ReportSeatLog), by (match, seat); `account_order_`
  // drops the oldest beyond max_accounts.
  std::map<std::pair<std::string, int>, std::vector<std::pair<int, int>>> accounts_
      ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<std::string, int>> account_order_ ABSL_GUARDED_BY(mu_);
  size_t account_places_ ABSL_GUARDED_BY(mu_) = 0;  // decisions in accounts_
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_HOSTING_HOSTED_BOTS_H_
