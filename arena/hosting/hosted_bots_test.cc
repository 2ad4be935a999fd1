// Hosted versions and events (issue 32): while an event's final runs, a bot
// entered in it is held at the newest version that was ready at the freeze.

#include "arena/hosting/hosted_bots.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "arena/scheduler/dial_in.h"
#include "arena/scheduler/scheduler.h"
#include "arena/store/sqlite_store.h"

namespace tarock::arena {
namespace {

namespace fs = std::filesystem;

// An empty directory of its own for a test's database (the test removes it).
fs::path FreshDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / absl::StrCat(name, "_", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The bot "hosted" (owner ann, token "t") at `endpoint`, for `variant`.
BotRow HostedBot(const std::string& endpoint, const std::string& variant) {
  BotRow bot;
  bot.name = "hosted";
  bot.endpoint = endpoint;
  bot.owner = "ann";
  bot.variants = {variant};
  bot.token_hash = HashToken("t");
  return bot;
}

// A one-byte Python version of the bot `bot_id`.
VersionRow OneByteVersion(int64_t bot_id) {
  VersionRow v;
  v.bot_id = bot_id;
  v.kind = "python";
  v.entry = "bot.py";
  v.filename = "bot.py";
  v.sha256 = std::string(64, 'a');
  v.size = 1;
  v.content = "eA==";
  return v;
}

TEST(HostedBotsTest, ABotInAFrozenEventPlaysTheVersionReadyAtTheFreeze) {
  const fs::path dir = FreshDir("hosted_bots_test");
  const std::string db = (dir / "arena.db").string();
  absl::StatusOr<std::unique_ptr<Store>> store = SqliteStore::Open(db);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<BotRow> added = (*store)->AddBot(HostedBot(kDialInEndpoint, "slovenian-3p"));
  ASSERT_TRUE(added.ok());
  const VersionRow v = OneByteVersion(added->id);
  std::vector<int64_t> ids;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<int64_t> id = (*store)->AddVersion(v, 5);
    ASSERT_TRUE(id.ok());
    ids.push_back(*id);
  }
  ASSERT_TRUE((*store)->SetVersionStatus(ids[0], "ready", "").ok());
  ASSERT_TRUE((*store)->SetVersionStatus(ids[1], "ready", "").ok());  // ids[2] still building
  // Ready at 10:00 and 12:00 (set directly: the store stamps "now").
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw,
                           absl::StrCat("UPDATE bot_versions SET ready_at = '2026-01-01 10:00:00' WHERE id = ",
                                        ids[0], "; UPDATE bot_versions SET ready_at = '2026-01-01 12:00:00' WHERE id = ",
                                        ids[1], ";")
                               .c_str(),
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  HostedBots hosting(store->get());
  absl::StatusOr<std::string> token = hosting.AddHost("h");
  ASSERT_TRUE(token.ok());
  absl::StatusOr<HostRow> host = hosting.AuthenticateHost(*token);
  ASSERT_TRUE(host.ok());
  auto held = [&] {
    std::vector<HostedBots::Held> h = hosting.Sync(*host, 0);
    EXPECT_EQ(h.size(), 1u);
    return h.empty() ? HostedBots::Held() : h[0];
  };
  // No event: the newest ready plays, the newest is built.
  HostedBots::Held h = held();
  ASSERT_TRUE(h.ready && h.newest);
  EXPECT_EQ(h.ready->id, ids[1]);
  EXPECT_EQ(h.newest->id, ids[2]);
  // Entered in an event that froze at 11:00: the 10:00 version, nothing newer.
  EventRow e;
  e.slug = "cup";
  e.status = "frozen";
  e.organiser_token_hash = "x";
  e.invite_code = "c";
  e.config = "{}";
  absl::StatusOr<int64_t> event = (*store)->InsertEvent(e);
  ASSERT_TRUE(event.ok());
  e.id = *event;
  e.frozen_at = "2026-01-01 11:00:00";
  ASSERT_TRUE((*store)->UpdateEvent(e).ok());
  ASSERT_TRUE((*store)->EnterBot({*event, added->id, 1, false, ""}).ok());
  h = held();
  ASSERT_TRUE(h.ready && h.newest);
  EXPECT_EQ(h.ready->id, ids[0]);
  EXPECT_EQ(h.newest->id, ids[0]);
  // The final over: the newest again.
  e.status = "finished";
  ASSERT_TRUE((*store)->UpdateEvent(e).ok());
  h = held();
  EXPECT_EQ(h.ready->id, ids[1]);
  store->reset();
  fs::remove_all(dir);
}

// bots upload --reset_rating: the upload is stored, the bot's ratings are
// gone (its next rated match starts from the prior), and the reset is on
// record, so rebuilding the ratings from the results agrees with the store.
TEST(HostedBotsTest, AnUploadWithResetRatingStartsTheRatingsAgain) {
  const fs::path dir = FreshDir("hosted_bots_reset");
  const std::string db = (dir / "arena.db").string();
  absl::StatusOr<std::unique_ptr<Store>> store = SqliteStore::Open(db);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<BotRow> added = (*store)->AddBot(HostedBot(kDialInEndpoint, "slovenian-4p"));
  ASSERT_TRUE(added.ok());
  {  // A rating in two pools (set directly: no match needed for this).
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw,
                           absl::StrCat("INSERT INTO ratings VALUES (", added->id,
                                        ", 'slovenian-4p', 31.5, 2.0, 40, 1), (", added->id,
                                        ", 'slovenian-4p@3', 20.0, 4.0, 9, 0);")
                               .c_str(),
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  ASSERT_EQ((*store)->RatingsOfBot(added->id).size(), 2u);
  HostedBots hosted(store->get());
  const std::string py = "def decide(s):\n    return s.legal_actions[0]\n";
  // By default the rating carries over.
  ASSERT_TRUE(hosted.Upload("hosted", "t", "bot.py", py, "", "").ok());
  EXPECT_EQ((*store)->RatingsOfBot(added->id).size(), 2u);
  EXPECT_TRUE((*store)->RatingResets().empty());
  // The wrong token resets nothing.
  EXPECT_FALSE(hosted.Upload("hosted", "x", "bot.py", py, "", "", true).ok());
  EXPECT_EQ((*store)->RatingsOfBot(added->id).size(), 2u);
  EXPECT_FALSE(VerifyRatings(**store, RatingModel()).ok());  // 2 ratings no result explains
  absl::StatusOr<VersionRow> v = hosted.Upload("hosted", "t", "bot.py", py, "", "", true);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->status, "building");
  EXPECT_TRUE((*store)->RatingsOfBot(added->id).empty());
  ASSERT_EQ((*store)->RatingResets().size(), 1u);
  EXPECT_EQ((*store)->RatingResets()[0].first, added->id);
  EXPECT_TRUE(VerifyRatings(**store, RatingModel()).ok());
  store->reset();
  fs::remove_all(dir);
}

// An upload to an arena no bot host has synced with says so (issue 47): in the
// upload's answer and in the versions, to anyone; once a host syncs, the
// version is only "building".
TEST(HostedBotsTest, AnUploadWithNoBotHostSaysNoHostIsConnected) {
  const fs::path dir = FreshDir("hosted_bots_nohost");
  absl::StatusOr<std::unique_ptr<Store>> store = SqliteStore::Open((dir / "arena.db").string());
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->AddBot(HostedBot(kDialInEndpoint, "slovenian-4p")).ok());
  HostedBots hosted(store->get());
  const std::string py = "def decide(s):\n    return s.legal_actions[0]\n";
  absl::StatusOr<VersionRow> v = hosted.Upload("hosted", "t", "bot.py", py, "", "");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->status, "building");
  EXPECT_TRUE(absl::StrContains(v->build_log, "no bot host is connected")) << v->build_log;
  bool owner = true;
  absl::StatusOr<std::vector<VersionRow>> versions = hosted.Versions("hosted", "", &owner);
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 1u);
  EXPECT_TRUE(absl::StrContains((*versions)[0].build_log, "no bot host is connected"));
  // A host connects: the note goes.
  absl::StatusOr<std::string> token = hosted.AddHost("h1");
  ASSERT_TRUE(token.ok());
  absl::StatusOr<HostRow> host = hosted.AuthenticateHost(*token);
  ASSERT_TRUE(host.ok());
  hosted.Sync(*host, 0);
  versions = hosted.Versions("hosted", "t", &owner);
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ((*versions)[0].build_log, "");
  store->reset();
  fs::remove_all(dir);
}

// A host's account of a seat (ReportSeatLog's `slow`): only the host that
// holds the bot, only for a seat the bot plays, taken once by the scheduler;
// what all hosts' accounts hold together is bounded, the oldest going first.
TEST(HostedBotsTest, SeatAccountsComeFromTheHolderAndAreBounded) {
  const fs::path dir = FreshDir("hosted_bots_accounts");
  absl::StatusOr<std::unique_ptr<Store>> store = SqliteStore::Open((dir / "arena.db").string());
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<BotRow> added = (*store)->AddBot(HostedBot(kHostedEndpoint, "slovenian-4p"));
  ASSERT_TRUE(added.ok());
  const VersionRow v = OneByteVersion(added->id);
  absl::StatusOr<int64_t> version = (*store)->AddVersion(v, 5);
  ASSERT_TRUE(version.ok());
  ASSERT_TRUE((*store)->SetVersionStatus(*version, "ready", "").ok());
  for (const char* id : {"M1", "M2", "M3"}) {
    MatchRow m;
    m.id = id;
    m.variant = "slovenian-4p";
    m.kind = "ladder";
    m.spec = "{}";
    m.bot_ids = {added->id, 0, 0, 0};
    ASSERT_TRUE((*store)->InsertMatch(m).ok());
  }
  HostingOptions options;
  options.max_account_places = 10;
  HostedBots hosted(store->get(), options);
  absl::StatusOr<std::string> token = hosted.AddHost("h1");
  absl::StatusOr<std::string> other_token = hosted.AddHost("h2");
  ASSERT_TRUE(token.ok() && other_token.ok());
  absl::StatusOr<HostRow> host = hosted.AuthenticateHost(*token);
  absl::StatusOr<HostRow> other = hosted.AuthenticateHost(*other_token);
  ASSERT_TRUE(host.ok() && other.ok());
  ASSERT_EQ(hosted.Sync(*host, 0).size(), 1u);  // h1 holds the bot
  EXPECT_TRUE(hosted.HostSyncing(added->id));
  const std::vector<std::pair<int, int>> six = {{0, 1}, {0, 5}, {1, 2}, {2, 3}, {3, 4}, {4, 5}};
  // Not the holder, or not the bot's seat: refused, nothing kept.
  EXPECT_EQ(hosted.ReportSeatLog(*other, "hosted", "M1", 0, "", six).code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(hosted.ReportSeatLog(*host, "hosted", "M1", 1, "", six).code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_FALSE(hosted.AwaitSeatAccount("M1", 0, absl::Now()).has_value());
  // Kept, and taken once.
  ASSERT_TRUE(hosted.ReportSeatLog(*host, "hosted", "M1", 0, "", six).ok());
  std::optional<std::vector<std::pair<int, int>>> got = hosted.AwaitSeatAccount("M1", 0, absl::Now());
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, six);
  EXPECT_FALSE(hosted.AwaitSeatAccount("M1", 0, absl::Now()).has_value());
  // 6 + 6 decisions > 10: the older account goes.
  ASSERT_TRUE(hosted.ReportSeatLog(*host, "hosted", "M2", 0, "", six).ok());
  ASSERT_TRUE(hosted.ReportSeatLog(*host, "hosted", "M3", 0, "", six).ok());
  EXPECT_FALSE(hosted.AwaitSeatAccount("M2", 0, absl::Now()).has_value());
  EXPECT_TRUE(hosted.AwaitSeatAccount("M3", 0, absl::Now()).has_value());
  // An account of more than 4096 decisions is not kept (the log is).
  ASSERT_TRUE(hosted
                  .ReportSeatLog(*host, "hosted", "M3", 0, "",
                                 std::vector<std::pair<int, int>>(4097, {0, 0}))
                  .ok());
  EXPECT_FALSE(hosted.AwaitSeatAccount("M3", 0, absl::Now()).has_value());
  fs::remove_all(dir);
}

// A host token obtains only what the arena gave that host (issue 44):
// another host's bot is refused at Fetch, ReportBuild and the gateway's door;
// of its own bots, only the versions its syncs named.
TEST(HostedBotsTest, AHostTokenObtainsOnlyWhatItsHostWasGiven) {
  const fs::path dir = FreshDir("hosted_bots_scope");
  absl::StatusOr<std::unique_ptr<Store>> store = SqliteStore::Open((dir / "arena.db").string());
  ASSERT_TRUE(store.ok()) << store.status();
  BotRow rival_row = HostedBot(kHostedEndpoint, "slovenian-4p");
  rival_row.name = "rival";
  absl::StatusOr<BotRow> mine = (*store)->AddBot(HostedBot(kHostedEndpoint, "slovenian-4p"));
  absl::StatusOr<BotRow> rival = (*store)->AddBot(rival_row);
  ASSERT_TRUE(mine.ok() && rival.ok());
  absl::StatusOr<int64_t> old_version = (*store)->AddVersion(OneByteVersion(mine->id), 5);
  ASSERT_TRUE(old_version.ok());
  ASSERT_TRUE((*store)->SetVersionStatus(*old_version, "ready", "").ok());
  absl::StatusOr<int64_t> ready = (*store)->AddVersion(OneByteVersion(mine->id), 5);
  ASSERT_TRUE(ready.ok());
  ASSERT_TRUE((*store)->SetVersionStatus(*ready, "ready", "").ok());
  absl::StatusOr<int64_t> rival_version = (*store)->AddVersion(OneByteVersion(rival->id), 5);
  ASSERT_TRUE(rival_version.ok());  // building
  HostedBots hosted(store->get());
  absl::StatusOr<std::string> t1 = hosted.AddHost("h1");
  absl::StatusOr<std::string> t2 = hosted.AddHost("h2");
  ASSERT_TRUE(t1.ok() && t2.ok());
  absl::StatusOr<HostRow> h1 = hosted.AuthenticateHost(*t1);
  absl::StatusOr<HostRow> h2 = hosted.AuthenticateHost(*t2);
  ASSERT_TRUE(h1.ok() && h2.ok());
  // h2 syncs first and takes both bots; h1 gets none while h2 is live.
  ASSERT_EQ(hosted.Sync(*h2, 0).size(), 2u);
  EXPECT_TRUE(hosted.Sync(*h1, 0).empty());
  // h1's token: nothing of h2's bots.
  EXPECT_EQ(hosted.Fetch(*h1, *rival_version).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(hosted.Fetch(*h1, *ready).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(hosted.ReportBuild(*h1, *rival_version, false, "spoilt").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(hosted.AuthenticateHostedBot(*t1, "rival").status().code(),
            absl::StatusCode::kFailedPrecondition);
  // h2's own: the versions its syncs named, not an older one.
  EXPECT_TRUE(hosted.Fetch(*h2, *ready).ok());
  EXPECT_TRUE(hosted.Fetch(*h2, *rival_version).ok());
  EXPECT_EQ(hosted.Fetch(*h2, *old_version).status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(hosted.ReportBuild(*h2, *old_version, false, "x").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(hosted.AuthenticateHostedBot(*t2, "rival").ok());
  absl::StatusOr<VersionRow> built = hosted.ReportBuild(*h2, *rival_version, true, "built");
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->status, "ready");
  fs::remove_all(dir);
}

// Issue 48: an upload byte-identical to the bot's current version is that
// version (the same id, a one-line note, nothing stored, no upload counted);
// another file name, kind or byte is a new version, and so is the same file
// after the current version failed (built again).
TEST(HostedBotsTest, AnIdenticalReuploadIsTheCurrentVersionNotANewOne) {
  const fs::path dir = FreshDir("hosted_bots_identical");
  absl::StatusOr<std::unique_ptr<Store>> store = SqliteStore::Open((dir / "arena.db").string());
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<BotRow> bot = (*store)->AddBot(HostedBot(kHostedEndpoint, "slovenian-4p"));
  ASSERT_TRUE(bot.ok());
  HostingOptions options;
  options.uploads_per_hour = 3;
  HostedBots hosted(store->get(), options);
  const std::string py = "def decide(s):\n    return s.legal_actions[0]\n";
  std::string note = "stale";
  absl::StatusOr<VersionRow> v1 = hosted.Upload("hosted", "t", "bot.py", py, "", "", false, &note);
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_EQ(note, "");
  for (int i = 0; i < 4; ++i) {  // more than uploads_per_hour: none counts
    absl::StatusOr<VersionRow> again =
        hosted.Upload("hosted", "t", "dir/bot.py", py, "", "", false, &note);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(again->id, v1->id);
    EXPECT_EQ(again->sha256, v1->sha256);
    EXPECT_NE(note.find(absl::StrCat("byte-identical to version ", v1->id, " (building)")),
              std::string::npos) << note;
    EXPECT_EQ(note.find('\n'), std::string::npos);
  }
  EXPECT_EQ((*store)->ListVersions(bot->id).size(), 1u);
  EXPECT_EQ((*store)->StoredByOwner("ann").versions, 1);
  // The wrong token is refused, identical or not.
  EXPECT_EQ(hosted.Upload("hosted", "x", "bot.py", py, "", "", false, &note).status().code(),
            absl::StatusCode::kPermissionDenied);
  // Another name, another kind, another byte: new versions.
  absl::StatusOr<VersionRow> renamed = hosted.Upload("hosted", "t", "main.py", py, "", "", false, &note);
  ASSERT_TRUE(renamed.ok()) << renamed.status();
  EXPECT_NE(renamed->id, v1->id);
  EXPECT_EQ(note, "");
  absl::StatusOr<VersionRow> as_stdio =
      hosted.Upload("hosted", "t", "main.py", py, "stdio", "", false, &note);
  ASSERT_TRUE(as_stdio.ok()) << as_stdio.status();
  EXPECT_NE(as_stdio->id, renamed->id);
  EXPECT_EQ(as_stdio->kind, "stdio");
  EXPECT_EQ(note, "");
  // The hour's 3 uploads are used: a changed file is refused, the same one is not.
  EXPECT_EQ(hosted.Upload("hosted", "t", "main.py", py + "#\n", "stdio", "", false, &note)
                .status().code(),
            absl::StatusCode::kResourceExhausted);
  absl::StatusOr<VersionRow> same = hosted.Upload("hosted", "t", "main.py", py, "stdio", "", false, &note);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->id, as_stdio->id);
  EXPECT_FALSE(note.empty());
  // The current version fails: the same file is built again, as a new version.
  absl::StatusOr<std::string> t = hosted.AddHost("h");
  ASSERT_TRUE(t.ok());
  absl::StatusOr<HostRow> h = hosted.AuthenticateHost(*t);
  ASSERT_TRUE(h.ok());
  ASSERT_EQ(hosted.Sync(*h, 0).size(), 1u);
  ASSERT_TRUE(hosted.ReportBuild(*h, as_stdio->id, false, "no").ok());
  HostingOptions more = options;
  more.uploads_per_hour = 10;
  HostedBots hosted2(store->get(), more);
  absl::StatusOr<VersionRow> rebuilt =
      hosted2.Upload("hosted", "t", "main.py", py, "stdio", "", false, &note);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_NE(rebuilt->id, as_stdio->id);
  EXPECT_EQ(rebuilt->status, "building");
  EXPECT_EQ(note, "");
  EXPECT_EQ((*store)->ListVersions(bot->id).size(), 4u);
  fs::remove_all(dir);
}

// Issue 46: a large upload comes back to its host whole, in pieces no larger
// than kFetchPieceBytes (no message holds it all); the bytes all bots keep
// are bounded (StorageLimits::bytes_total: one line, nothing stored).
TEST(HostedBotsTest, ALargeUploadIsFetchedInPiecesAndTheBytesOfAllBotsAreBounded) {
  const fs::path dir = FreshDir("hosted_bots_large");
  absl::StatusOr<std::unique_ptr<Store>> store = SqliteStore::Open((dir / "arena.db").string());
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<BotRow> bot = (*store)->AddBot(HostedBot(kHostedEndpoint, "slovenian-4p"));
  ASSERT_TRUE(bot.ok());
  HostingOptions options;
  options.storage.bytes_total = int64_t{9} << 20;
  HostedBots hosted(store->get(), options);
  // A stdio script with 4 MiB + 1 bytes (over one piece, not a multiple of 3).
  std::string content = "#!/bin/sh\n# ";
  for (int i = 0; static_cast<int64_t>(content.size()) < (int64_t{4} << 20); ++i)
    content.push_back(static_cast<char>('a' + i % 26));
  content += "\n";
  absl::StatusOr<VersionRow> v = hosted.Upload("hosted", "t", "bot.sh", content, "stdio", "", false);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->content.empty());
  absl::StatusOr<std::string> t = hosted.AddHost("h");
  ASSERT_TRUE(t.ok());
  absl::StatusOr<HostRow> h = hosted.AuthenticateHost(*t);
  ASSERT_TRUE(h.ok());
  ASSERT_EQ(hosted.Sync(*h, 0).size(), 1u);
  std::string whole;
  int pieces = 0;
  while (static_cast<int64_t>(whole.size()) < v->size) {
    VersionRow info;
    absl::StatusOr<std::string> piece = hosted.FetchPiece(*h, v->id, whole.size(), 0, &info);
    ASSERT_TRUE(piece.ok()) << piece.status();
    ASSERT_FALSE(piece->empty());
    EXPECT_LE(static_cast<int64_t>(piece->size()), HostedBots::kFetchPieceBytes);
    EXPECT_EQ(info.size, static_cast<int64_t>(content.size()));
    whole += *piece;
    ++pieces;
  }
  EXPECT_EQ(whole, content);
  EXPECT_EQ(pieces, 3);
  EXPECT_EQ(hosted.FetchPiece(*h, v->id, 1, 0, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(hosted.FetchPiece(*h, v->id, 3 << 22, 0, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Two such versions are 8 MiB; a third passes the arena's 9 MiB (each
  // differs from the one before: an identical upload stores nothing).
  content.back() = ' ';
  ASSERT_TRUE(hosted.Upload("hosted", "t", "bot.sh", content, "stdio", "", false).ok());
  content.back() = '\n';
  absl::StatusOr<VersionRow> third = hosted.Upload("hosted", "t", "bot.sh", content, "stdio", "", false);
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(std::string(third.status().message()).find('\n'), std::string::npos);
  EXPECT_NE(std::string(third.status().message()).find("the arena stores"), std::string::npos)
      << third.status();
  EXPECT_EQ((*store)->ListVersions(bot->id).size(), 2u);
  EXPECT_EQ((*store)->StoredInAll().bytes, 2 * static_cast<int64_t>(content.size()));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tarock::arena
