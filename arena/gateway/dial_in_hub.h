// The dial-in hub: the arena's side of bots that connect out to it
// (gateway.proto, docs/dial-in.md). It keeps each dial-in bot's current
// connection and the seats the scheduler prepared for it, and joins the two:
// a prepared seat is a SeatConsumer of the seat relay
// (arena/play/seat_relay.h), so the referee's stream of that seat reaches
// the bot's connection as SeatMessages tagged with the seat's id, and the
// bot's SeatReplies go back on that referee stream.
//
//   referee --Bot.Play--> BotRelayService --> SeatRelay --> DialInSeat --SeatMessage--> bot
//                                                              ^                      |
//                                         DialInHub::FromBot --+------ SeatReply -----+
//
// What the hub guarantees:
//  - A bot only ever receives its own seats, and a reply naming a seat of
//    another bot is refused (PERMISSION_DENIED, the connection ends).
//  - One connection per bot: a new one replaces the old (closed with
//    ABORTED), and every seat in progress is sent again on it (MatchStart,
//    the current HandStart, the request waiting for an answer).
//  - A bot held at a frozen version (SetFrozen: its event's final runs and
//    a bot host plays its upload) keeps its host's connection: a connection
//    with the bot's own token cannot replace it (FAILED_PRECONDITION), and a
//    seat ever attached to a connection that is not a host's says so
//    (PlayedUnhosted), so the results mark frozen only what a host played.
//  - A seat whose bot is offline holds its request until the decision's time
//    runs out; if the bot comes back meanwhile it answers as usual, else the
//    referee gets an Absent (a disconnect fault, the fallback plays). Once a
//    seat missed a whole decision offline, its next requests get Absent at
//    once until the bot is back, so a dead bot does not slow its match.
//
// No gRPC here (arena/gateway/bot_gateway_service.h is the thin gRPC layer),
// so the hub is unit-tested without a network.
//
// Thread-safety: thread-safe. Lock order: the hub's lock, then a seat's;
// links (BotLink, RefereeLink) only queue, so they are called under a seat's
// lock (that keeps a seat's messages in order across a reconnection).

#ifndef TAROCK_ARENA_GATEWAY_DIAL_IN_HUB_H_
#define TAROCK_ARENA_GATEWAY_DIAL_IN_HUB_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "arena/play/seat_relay.h"
#include "arena/scheduler/dial_in.h"
#include "tarock/v1/gateway.pb.h"

namespace tarock::arena::gateway {

// The way to one bot connection.
class BotLink {
 public:
  virtual ~BotLink() = default;
  // Queues a message for the bot; never blocks; false once the link is closed.
  virtual bool Send(const v1::ArenaDownlink& message) = 0;
  // Ends the connection with `status` (after what is queued).
  virtual void Close(const absl::Status& status) = 0;
};

struct HubOptions {
  int max_seats = 256;                        // seats one bot holds at once (Welcome.max_seats)
  absl::Duration keepalive = absl::Seconds(20);  // announced in Welcome (the transport pings)
  int max_connects_per_minute = 30;           // per bot; more: RESOURCE_EXHAUSTED
  absl::Duration tick = absl::Milliseconds(5);   // how often held requests are checked
  // After a seat of a connection fell back to the relay (the bot did not
  // join the referee in time), how long that connection's seats stay
  // relayed before the direct route is tried again: a bot that joined late
  // once (a host restarting on a busy machine) gets the direct route back,
  // and one that cannot reach the referees loses one join wait a period.
  absl::Duration direct_retry = absl::Minutes(5);
};

class DialInSeat;

class DialInHub final : public DialInSeats {
 public:
  // `relay` must outlive the hub.
  DialInHub(play::SeatRelay* relay, HubOptions options = {});
  ~DialInHub() override;

  // A connection authenticated as bot `bot_id`: it becomes the bot's link
  // (an earlier one is closed with ABORTED), gets a Welcome and every seat in
  // progress. Returns the connection's id. Errors: RESOURCE_EXHAUSTED when the
  // bot connects more often than max_connects_per_minute (nothing changes).
  // `hosted`: a bot host opened it for a hosted bot (its end is a host lost:
  // TakeHostLost); `host_id` that host (the seats it gets are its to report
  // on: ClaimSeatReport).
  absl::StatusOr<uint64_t> Connect(int64_t bot_id, const std::string& bot_name,
                                   std::shared_ptr<BotLink> link, bool hosted = false,
                                   int64_t host_id = 0);
  // A bot host's account of a seat (HostedBots::ReportSeatLog) is taken only
  // from the host whose connection the arena gave that seat in its current
  // (or last) attempt, and once an attempt: OK (the report is now claimed),
  // PERMISSION_DENIED when the seat was never given to a connection of
  // `host_id` (another host's seat, a seat not prepared, or played by the
  // bot's own token), ALREADY_EXISTS when that host reported it already.
  // The newest kMaxSeatHosts seats are remembered.
  absl::Status ClaimSeatReport(const std::string& match_id, int seat, int64_t host_id);
  static constexpr size_t kMaxSeatHosts = 65536;
  // Connection `connection` of the bot ended (a no-op when it was replaced).
  // A hosted connection's end marks every seat of the bot host-lost.
  void Disconnect(int64_t bot_id, uint64_t connection);
  // A message from connection `connection` of `bot_id`. Errors (the caller
  // ends the connection with them): PERMISSION_DENIED for another bot's seat,
  // INVALID_ARGUMENT for a message that is neither a Hello nor a SeatReply
  // with a Decision (or an Absent), or a seat never given out,
  // FAILED_PRECONDITION when the connection was replaced.
  // A reply for a seat that ended or a request already answered is dropped.
  absl::Status FromBot(int64_t bot_id, uint64_t connection, const v1::BotUplink& message);

  int online_count();
  int seat_count();

  // The arena stops (SIGTERM): every connection is closed now with
  // UNAVAILABLE, so the gRPC server's shutdown need not wait out its
  // deadline for the bots' streams, and later Connects are refused
  // (UNAVAILABLE). The process ends within 2 s (tests/doors_test.sh).
  void CloseAll();

  // For hosted bots: whether the host that holds the bot still syncs
  // (HostedBots::HostSyncing). A bot on a hosted connection is online only
  // while it does, so a host that stalls with its connections up (stopped,
  // a paused VM, a partition) gets no new seats once it has missed a few
  // syncs, long before the transport's keepalive ends its connections
  // (docs/hosting.md, "A host that stalls"). Unset: every connection counts.
  // Call before connections arrive; `syncing` must be thread-safe and must
  // not call into the hub.
  void SetHostSyncing(std::function<bool(int64_t bot_id)> syncing) {
    absl::MutexLock lock(&mu_);
    host_syncing_ = std::move(syncing);
  }

  // Whether bot `bot_id` is held at a frozen version now (its event's final
  // runs and it has uploaded versions, events.cc): then a connection with
  // its own token is refused while a host's connection for it is up. Unset:
  // never. Same rules as SetHostSyncing (thread-safe, no calls into the hub;
  // it is called outside the hub's lock, once per own-token connection).
  void SetFrozen(std::function<bool(int64_t bot_id)> frozen) {
    absl::MutexLock lock(&mu_);
    frozen_ = std::move(frozen);
  }

  // DialInSeats.
  bool Online(int64_t bot_id) override;
  absl::Time LastOnline(int64_t bot_id) override;
  bool PlayedUnhosted(const std::string& match_id, int seat) override;
  bool AwaitOnline(int64_t bot_id, absl::Time deadline) override;
  absl::Status Prepare(const std::string& match_id, int seat, int64_t bot_id,
                       const std::string& bot_name) override;
  bool CanJoinReferee(int64_t bot_id) override;
  absl::Status RouteToReferee(const std::string& match_id, int seat, const std::string& referee,
                              const std::string& ticket) override;
  bool TakeHostLost(const std::string& match_id, int seat) override;
  void Release(const std::string& match_id, int seat) override;

 private:
  struct Bot {
    std::shared_ptr<BotLink> link;  // null while offline
    uint64_t connection = 0;
    bool hosted = false;  // the current (or last) connection is a bot host's
    int64_t host_id = 0;  // that host (0: not hosted)
    std::vector<absl::Time> connects;  // within the last minute
    absl::Time offline_since = absl::InfinitePast();  // when its last connection ended
    std::optional<v1::Hello> hello;
    std::map<int64_t, std::shared_ptr<DialInSeat>> seats;  // by seat id
    // A seat routed to a referee was dialed there instead (--dial_in_route=
    // auto: the bot did not join in time): this connection's seats are
    // relayed until then (HubOptions::direct_retry).
    absl::Time relayed_until = absl::InfinitePast();
  };
  // A seat of `connection` fell back to the relay.
  void JoinFellBack(int64_t bot_id, uint64_t connection);
  void TickLoop();
  bool OnlineLocked(int64_t bot_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  play::SeatRelay* relay_;
  const HubOptions options_;
  absl::Mutex mu_;
  std::map<int64_t, Bot> bots_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, std::shared_ptr<DialInSeat>> seats_ ABSL_GUARDED_BY(mu_);  // by seat id
  std::map<std::pair<std::string, int>, int64_t> seat_ids_ ABSL_GUARDED_BY(mu_);
  // The host whose connection each seat's attempt was given to (0: none
  // yet, or the bot's own connection), and whether it reported the seat;
  // `seat_host_order_` drops the oldest beyond kMaxSeatHosts.
  struct SeatHost {
    int64_t host_id = 0;
    bool reported = false;
  };
  std::map<std::pair<std::string, int>, SeatHost> seat_hosts_ ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<std::string, int>> seat_host_order_ ABSL_GUARDED_BY(mu_);
  // Gives the bot's prepared seats to its current connection's host.
  void GiveSeatsToHost(const Bot& bot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int64_t next_seat_id_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_connection_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;  // CloseAll
  std::function<bool(int64_t)> host_syncing_ ABSL_GUARDED_BY(mu_);
  std::function<bool(int64_t)> frozen_ ABSL_GUARDED_BY(mu_);
  std::thread ticker_;
};

// One prepared seat: the relay's consumer for (match, seat), bound to a bot.
class DialInSeat final : public play::SeatConsumer {
 public:
  // `on_join_fallback` is called when a referee dials the relay for a seat
  // routed to that referee (the bot did not join it in time).
  // `hosted`: `bot_link` is a bot host's connection (else the bot's own, or
  // none).
  DialInSeat(int64_t seat_id, int64_t bot_id, std::shared_ptr<BotLink> bot_link,
             std::optional<v1::Hello> hello, std::function<void()> on_join_fallback = nullptr,
             bool hosted = false);

  int64_t seat_id() const { return seat_id_; }
  int64_t bot_id() const { return bot_id_; }

  // SeatConsumer.
  void OnAttach(std::shared_ptr<play::RefereeLink> link) override;
  void OnMessage(const v1::RefereeMessage& message) override;
  void OnDetach(const play::RefereeLink* link) override;

  // The bot's connection changed (null: offline). A new one gets the seat's
  // state again (MatchStart, HandStart, the waiting request). Returns true
  // when the seat is in progress (and was resent).
  // `hosted`: the link is a bot host's connection.
  bool SetBotLink(std::shared_ptr<BotLink> link, std::optional<v1::Hello> hello,
                  bool hosted = false);
  // Whether a connection that was not a bot host's was ever the seat's link.
  bool played_unhosted() const { return unhosted_.load(); }
  // The bot's Hello for a seat prepared before it arrived (a bot that
  // connected a moment before the seat was made, or came back while the
  // seat was held): kept and sent to the referee, so the seat knows the
  // bot's name and version. A seat that has a Hello keeps it.
  void SetHelloIfMissing(const v1::Hello& hello);
  // The direct route: the bot plays the seat on `referee` with `ticket`
  // (JoinReferee now, and again on every new connection).
  void RouteToReferee(const std::string& referee, const std::string& ticket);
  // The bot's answer.
  void Answer(const v1::BotMessage& message);
  // While offline: a held request whose time ran out gets Absent.
  void Tick(absl::Time now);
  // The seat is released: the bot hears it is closed.
  void Close(const std::string& reason);
  // The bot's host connection ended while the seat was prepared; Take
  // returns whether it did since the last Take, and clears it.
  void MarkHostLost() { host_lost_.store(true); }
  bool TakeHostLost() { return host_lost_.exchange(false); }

 private:
  struct Pending {
    v1::DecisionRequest request;
    absl::Time arrived;
  };
  void SendAbsent(const Pending& pending, const std::string& detail)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Resend(bool resumed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int64_t seat_id_;
  const int64_t bot_id_;
  const std::function<void()> on_join_fallback_;
  absl::Mutex mu_;
  std::shared_ptr<BotLink> bot_link_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::Hello> hello_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<play::RefereeLink> referee_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::MatchStart> start_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::HandStart> hand_ ABSL_GUARDED_BY(mu_);
  std::optional<Pending> pending_ ABSL_GUARDED_BY(mu_);
  bool absent_ ABSL_GUARDED_BY(mu_) = false;  // missed a whole decision offline
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<v1::JoinReferee> join_ ABSL_GUARDED_BY(mu_);  // on the direct route
  std::atomic<bool> host_lost_{false};
  std::atomic<bool> unhosted_{false};
};

}  // namespace tarock::arena::gateway

#endif  // TAROCK_ARENA_GATEWAY_DIAL_IN_HUB_H_
