// LiveHub: the fan-out of running matches to spectators (the live pages).
//
// The scheduler tells the hub when a match starts on a referee (Begin), what
// the referee streams of it as it is played (Publish: only the public view,
// MatchSpec.public_events, referee/engine/public_view.h) and when it ends
// (End). Spectators (an SSE stream each, arena/server/http_api.cc) Watch one
// match, or the Feed of matches starting and ending. A spectator that joins
// late gets the events so far first, then each new one, in order, with no gap.
//
// Bounded: per match the hub keeps its header, each finished hand's summary
// and the steps of the hand being played (a hand's steps are dropped when the
// next hand starts), at most max_events_per_match in all; a finished match
// stays keep_finished, then goes; spectators per match are capped.
//
// What is never here: a match whose deal other tables still play (a duplicate
// set: `withheld`) has only its header and its end, never an action or score.
//
// Thread-safety: thread-safe. Sinks are called under the hub's lock, so
// LiveSink::Send must only queue (as metrics::EventSink does) and never call
// back into the hub.

#ifndef TAROCK_ARENA_SCHEDULER_LIVE_HUB_H_
#define TAROCK_ARENA_SCHEDULER_LIVE_HUB_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tarock::arena {

// Where a spectator's events go.
class LiveSink {
 public:
  virtual ~LiveSink() = default;
  // Queues one event; false once the spectator has gone (it is then dropped).
  virtual bool Send(const std::string& event, const std::string& data) = 0;
  // Ends the stream after what is queued.
  virtual void Close() = 0;
  // The spectator has gone (or Close was called).
  virtual bool closed() const = 0;
};

struct LiveHubOptions {
  // Events kept per match for late joiners (beyond it the oldest steps of
  // the current hand are dropped and the next joiner is told so).
  size_t max_events_per_match = 2000;
  // Spectators of one match at once (beyond: RESOURCE_EXHAUSTED).
  size_t max_spectators_per_match = 256;
  // Subscribers to the feed at once (beyond: RESOURCE_EXHAUSTED).
  size_t max_feed_subscribers = 512;
  // How long a finished match can still be watched (its last events).
  absl::Duration keep_finished = absl::Seconds(60);
};

// A match being played, as the home page lists it.
struct LiveMatchInfo {
  std::string id;
  std::string variant;
  std::string kind;  // "ladder", "tournament", "play", "test"
  int64_t ladder_id = 0;
  int64_t tournament_id = 0;
  std::vector<std::string> bots;  // by seat
  int num_hands = 0;
  // Other tables still play its deal: no step or score is shown live.
  bool withheld = false;
  int64_t started_ms = 0;  // Unix milliseconds
  int hands_done = 0;      // filled by the hub
};

class LiveHub {
 public:
  explicit LiveHub(LiveHubOptions options = {}) : options_(options) {}
  LiveHub(const LiveHub&) = delete;
  LiveHub& operator=(const LiveHub&) = delete;

  // A match starts on a referee. A match that starts again (another attempt)
  // drops its events so far; its spectators get a "restart" event.
  void Begin(const LiveMatchInfo& info);
  // One event of a running match ("hand": a hand starts; "action"; "hand_end":
  // a hand's scores), `data` JSON. Ignored for a match not begun or withheld.
  void Publish(const std::string& match_id, const std::string& event, const std::string& data);
  // The match ended (`outcome_json`, e.g. {"status":"done"}): spectators get an
  // "end" event and their streams close; the feed gets "finished".
  void End(const std::string& match_id, const std::string& outcome_json);
  // End for every withheld match not ended yet, at once (the arena stops:
  // the tables of a sealed deal end alike, whether they had finished).
  void EndWithheld(const std::string& outcome_json);
  // Whether `match_id` is begun and not ended.
  bool IsRunning(const std::string& match_id);

  // Sends every feed subscriber one event (e.g. "waiting": a tournament
  // match waits for a benched bot, {"tournament_id":..,"note":..}).
  void Announce(const std::string& event, const std::string& data);

  // Sends `sink` the match's events so far ("match" first: the header), then
  // each new one until the end. NOT_FOUND when the match is not running (nor
  // recently finished); RESOURCE_EXHAUSTED beyond max_spectators_per_match.
  absl::Status Watch(const std::string& match_id, std::shared_ptr<LiveSink> sink);
  // Sends `sink` a "running" event (the list of matches being played), then
  // "started" and "finished" events (LiveMatchInfo JSON) as they happen.
  absl::Status WatchFeed(std::shared_ptr<LiveSink> sink);

  // The matches being played now, oldest first.
  std::vector<LiveMatchInfo> Running();
  // Spectators of every match now (for tests and metrics).
  size_t Spectators();

  static std::string InfoJson(const LiveMatchInfo& info);

 private:
  struct Event {
    std::string event;
    std::string data;
  };
  struct Match {
    LiveMatchInfo info;
    std::deque<Event> events;  // events[0] is the header
    bool ended = false;
    bool dropped = false;  // steps were dropped for the bound
    absl::Time ended_at;
    std::vector<std::shared_ptr<LiveSink>> sinks;
  };
  void SweepLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FeedLocked(const std::string& event, const std::string& data) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static void SendAll(Match& m, const std::string& event, const std::string& data);

  const LiveHubOptions options_;
  absl::Mutex mu_;
  std::map<std::string, Match> matches_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<LiveSink>> feed_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SCHEDULER_LIVE_HUB_H_
