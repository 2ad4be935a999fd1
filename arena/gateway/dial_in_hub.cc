#include "arena/gateway/dial_in_hub.h"

#include <algorithm>
#include <pthread.h>

#include "absl/strings/str_cat.h"

namespace tarock::arena::gateway {

// ---------------------------------------------------------------------------
// DialInSeat.

DialInSeat::DialInSeat(int64_t seat_id, int64_t bot_id, std::shared_ptr<BotLink> bot_link,
                       std::optional<v1::Hello> hello, std::function<void()> on_join_fallback,
                       bool hosted)
    : seat_id_(seat_id), bot_id_(bot_id), on_join_fallback_(std::move(on_join_fallback)),
      bot_link_(std::move(bot_link)), hello_(std::move(hello)) {
  if (bot_link_ && !hosted) unhosted_.store(true);
}

void DialInSeat::OnAttach(std::shared_ptr<play::RefereeLink> link) {
  bool fell_back = false;
  {
    absl::MutexLock lock(&mu_);
    // A new referee stream (a first one, or the match again on another
    // referee): the seat starts over with its MatchStart, next.
    referee_ = std::move(link);
    start_.reset();
    hand_.reset();
    pending_.reset();
    absent_ = false;
    if (join_) {
      // Routed to a referee that dials the relay after all: the bot did not
      // join in time (--dial_in_route=auto). The seat is relayed, and a
      // reconnected bot gets it resent, not the ticket.
      join_.reset();
      fell_back = true;
    }
    if (hello_) {
      v1::BotMessage hello;
      *hello.mutable_hello() = *hello_;
      referee_->Send(hello);
    }
  }
  if (fell_back && on_join_fallback_) on_join_fallback_();
}

void DialInSeat::OnMessage(const v1::RefereeMessage& message) {
  absl::MutexLock lock(&mu_);
  if (closed_) return;
  switch (message.message_case()) {
    case v1::RefereeMessage::kMatchStart:
      start_ = message.match_start();
      break;
    case v1::RefereeMessage::kHandStart:
      hand_ = message.hand_start();
      break;
    case v1::RefereeMessage::kDecisionRequest:
      pending_ = Pending{message.decision_request(), absl::Now()};
      if (!bot_link_ && absent_) {
        SendAbsent(*pending_, "the dial-in bot is not connected");
        pending_.reset();
        return;
      }
      break;
    default:
      break;
  }
  if (!bot_link_) return;  // held: resent when the bot is back
  v1::ArenaDownlink down;
  v1::SeatMessage* seat = down.mutable_seat();
  seat->set_seat_id(seat_id_);
  *seat->mutable_message() = message;
  if (!bot_link_->Send(down)) bot_link_.reset();  // gone: the hub hears it soon
}

void DialInSeat::OnDetach(const play::RefereeLink* link) {
  absl::MutexLock lock(&mu_);
  if (referee_.get() != link) return;
  referee_.reset();
  pending_.reset();
}

bool DialInSeat::SetBotLink(std::shared_ptr<BotLink> link, std::optional<v1::Hello> hello,
                            bool hosted) {
  absl::MutexLock lock(&mu_);
  if (closed_) return false;
  if (link && !hosted) unhosted_.store(true);
  bot_link_ = std::move(link);
  if (hello) hello_ = std::move(hello);
  if (!bot_link_) return false;
  if (join_) {
    // A bot still playing the ticket ignores this; one that restarted joins again.
    v1::ArenaDownlink down;
    *down.mutable_join_referee() = *join_;
    down.mutable_join_referee()->set_resumed(true);
    bot_link_->Send(down);
    return true;
  }
  return Resend(true);
}

void DialInSeat::SetHelloIfMissing(const v1::Hello& hello) {
  absl::MutexLock lock(&mu_);
  if (closed_ || hello_) return;
  hello_ = hello;
  if (referee_) {
    v1::BotMessage message;
    *message.mutable_hello() = hello;
    referee_->Send(message);
  }
}

void DialInSeat::RouteToReferee(const std::string& referee, const std::string& ticket) {
  absl::MutexLock lock(&mu_);
  if (closed_) return;
  join_.emplace();
  join_->set_seat_id(seat_id_);
  join_->set_referee(referee);
  join_->set_ticket(ticket);
  if (!bot_link_) return;  // sent when the bot is back
  v1::ArenaDownlink down;
  *down.mutable_join_referee() = *join_;
  if (!bot_link_->Send(down)) bot_link_.reset();
}

bool DialInSeat::Resend(bool resumed) {
  if (!start_ || !referee_) return false;
  auto send = [&](auto set) {
    v1::ArenaDownlink down;
    v1::SeatMessage* seat = down.mutable_seat();
    seat->set_seat_id(seat_id_);
    seat->set_resumed(resumed);
    set(seat->mutable_message());
    bot_link_->Send(down);
  };
  send([&](v1::RefereeMessage* m) { *m->mutable_match_start() = *start_; });
  if (hand_) send([&](v1::RefereeMessage* m) { *m->mutable_hand_start() = *hand_; });
  if (pending_) {
    // The time left is what remains of the decision's time.
    const int64_t spent = absl::ToInt64Milliseconds(absl::Now() - pending_->arrived);
    send([&](v1::RefereeMessage* m) {
      v1::DecisionRequest* r = m->mutable_decision_request();
      *r = pending_->request;
      r->set_time_left_ms(std::max<int64_t>(0, r->time_left_ms() - spent));
    });
  }
  return true;
}

void DialInSeat::Answer(const v1::BotMessage& message) {
  absl::MutexLock lock(&mu_);
  if (closed_ || !referee_) return;
  const int64_t id =
      message.has_decision() ? message.decision().request_id() : message.absent().request_id();
  if (!pending_ || pending_->request.request_id() != id)
    return;  // late or unasked: the referee has moved on
  pending_.reset();
  absent_ = false;
  referee_->Send(message);
}

void DialInSeat::Tick(absl::Time now) {
  absl::MutexLock lock(&mu_);
  if (closed_ || bot_link_ || !pending_ || !referee_) return;
  if (now < pending_->arrived + absl::Milliseconds(pending_->request.time_left_ms())) return;
  SendAbsent(*pending_, "the dial-in bot was not connected for the whole decision");
  pending_.reset();
  absent_ = true;
}

void DialInSeat::SendAbsent(const Pending& pending, const std::string& detail) {
  if (!referee_) return;
  v1::BotMessage absent;
  absent.mutable_absent()->set_request_id(pending.request.request_id());
  absent.mutable_absent()->set_detail(detail);
  referee_->Send(absent);
}

void DialInSeat::Close(const std::string& reason) {
  absl::MutexLock lock(&mu_);
  if (closed_) return;
  closed_ = true;
  if (bot_link_) {
    v1::ArenaDownlink down;
    down.mutable_seat_closed()->set_seat_id(seat_id_);
    down.mutable_seat_closed()->set_reason(reason);
    bot_link_->Send(down);
  }
  bot_link_.reset();
}

// ---------------------------------------------------------------------------
// DialInHub.

DialInHub::DialInHub(play::SeatRelay* relay, HubOptions options)
    : relay_(relay), options_(options) {
  ticker_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "dial-in-tick");
    TickLoop();
  });
}

DialInHub::~DialInHub() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  ticker_.join();
}

void DialInHub::CloseAll() {
  std::vector<std::shared_ptr<BotLink>> links;
  {
    absl::MutexLock lock(&mu_);
    closing_ = true;
    for (auto& [id, bot] : bots_)
      if (bot.link) links.push_back(bot.link);
  }
  // Outside the lock: a link's end calls Disconnect.
  for (const std::shared_ptr<BotLink>& link : links)
    link->Close(absl::UnavailableError("the arena is stopping"));
}

void DialInHub::TickLoop() {
  for (;;) {
    std::vector<std::shared_ptr<DialInSeat>> offline;
    {
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&stopping_), options_.tick);
      if (stopping_) return;
      for (auto& [id, bot] : bots_)
        if (!bot.link)
          for (auto& [sid, seat] : bot.seats) offline.push_back(seat);
    }
    const absl::Time now = absl::Now();
    for (auto& seat : offline) seat->Tick(now);
  }
}

absl::StatusOr<uint64_t> DialInHub::Connect(int64_t bot_id, const std::string& bot_name,
                                            std::shared_ptr<BotLink> link, bool hosted,
                                            int64_t host_id) {
  std::shared_ptr<BotLink> old;
  std::vector<std::shared_ptr<DialInSeat>> seats;
  uint64_t connection = 0;
  std::optional<v1::Hello> hello;
  // A bot held at its frozen version: its own token cannot take the seats
  // from the host that plays the frozen upload.
  std::function<bool(int64_t)> frozen;
  if (!hosted) {
    absl::MutexLock lock(&mu_);
    auto it = bots_.find(bot_id);
    if (it != bots_.end() && it->second.link && it->second.hosted) frozen = frozen_;
  }
  if (frozen && frozen(bot_id)) {
    absl::MutexLock lock(&mu_);
    auto it = bots_.find(bot_id);
    if (it != bots_.end() && it->second.link && it->second.hosted)
      return absl::FailedPreconditionError(absl::StrCat(
          "bot '", bot_name, "' is frozen: its event's final runs and a bot host plays the "
          "version uploaded before the deadline; a connection with its own token cannot "
          "replace it until the final is over"));
  }
  {
    absl::MutexLock lock(&mu_);
    if (closing_) return absl::UnavailableError("the arena is stopping");
    Bot& bot = bots_[bot_id];
    const absl::Time now = absl::Now();
    bot.connects.erase(std::remove_if(bot.connects.begin(), bot.connects.end(),
                                      [&](absl::Time t) { return t < now - absl::Minutes(1); }),
                       bot.connects.end());
    if (static_cast<int>(bot.connects.size()) >= options_.max_connects_per_minute)
      return absl::ResourceExhaustedError(absl::StrCat(
          "bot '", bot_name, "' connected ", bot.connects.size(),
          " times in the last minute (the limit); wait and connect again"));
    bot.connects.push_back(now);
    old = std::move(bot.link);
    bot.link = link;
    bot.connection = connection = ++next_connection_;
    bot.hosted = hosted;
    bot.host_id = hosted ? host_id : 0;
    GiveSeatsToHost(bot);
    bot.hello.reset();  // the new process says who it is again
    bot.relayed_until = absl::InfinitePast();  // it may be somewhere else now
    for (auto& [id, seat] : bot.seats) seats.push_back(seat);
  }
  if (old) old->Close(absl::AbortedError("replaced by a newer connection of the same bot"));
  // The Welcome goes first, then the seats in progress; a seat's messages
  // are queued under its lock, so none of its new messages overtakes them.
  v1::ArenaDownlink welcome;
  welcome.mutable_welcome()->set_bot(bot_name);
  welcome.mutable_welcome()->set_keepalive_ms(absl::ToInt64Milliseconds(options_.keepalive));
  welcome.mutable_welcome()->set_max_seats(options_.max_seats);
  welcome.mutable_welcome()->set_seats_held(static_cast<int>(seats.size()));
  link->Send(welcome);
  for (auto& seat : seats) seat->SetBotLink(link, std::nullopt, hosted);
  return connection;
}

void DialInHub::Disconnect(int64_t bot_id, uint64_t connection) {
  std::vector<std::shared_ptr<DialInSeat>> seats;
  {
    absl::MutexLock lock(&mu_);
    auto it = bots_.find(bot_id);
    if (it == bots_.end() || it->second.connection != connection || !it->second.link) return;
    it->second.link.reset();
    it->second.offline_since = absl::Now();
    for (auto& [id, seat] : it->second.seats) {
      if (it->second.hosted) seat->MarkHostLost();
      seats.push_back(seat);
    }
  }
  for (auto& seat : seats) seat->SetBotLink(nullptr, std::nullopt);
}

bool DialInHub::TakeHostLost(const std::string& match_id, int seat) {
  std::shared_ptr<DialInSeat> s;
  {
    absl::MutexLock lock(&mu_);
    auto id = seat_ids_.find({match_id, seat});
    if (id == seat_ids_.end()) return false;
    auto it = seats_.find(id->second);
    if (it == seats_.end()) return false;
    s = it->second;
  }
  return s->TakeHostLost();
}

absl::Status DialInHub::FromBot(int64_t bot_id, uint64_t connection, const v1::BotUplink& message) {
  if (message.has_hello()) {
    v1::Hello hello = message.hello();
    hello.set_name(hello.name().substr(0, 64));
    hello.set_version(hello.version().substr(0, 64));
    if (hello.features_size() > 8) hello.mutable_features()->DeleteSubrange(8, hello.features_size() - 8);
    for (std::string& feature : *hello.mutable_features()) feature.resize(std::min<size_t>(feature.size(), 32));
    std::vector<std::shared_ptr<DialInSeat>> seats;
    {
      absl::MutexLock lock(&mu_);
      auto it = bots_.find(bot_id);
      if (it == bots_.end() || it->second.connection != connection)
        return absl::FailedPreconditionError("this connection was replaced by a newer one");
      it->second.hello = hello;  // for the seats prepared from now on
      for (auto& [id, seat] : it->second.seats) seats.push_back(seat);
    }
    // And for those prepared before it came, which have none yet.
    for (auto& seat : seats) seat->SetHelloIfMissing(hello);
    return absl::OkStatus();
  }
  if (!message.has_reply())
    return absl::InvalidArgumentError("a bot sends a Hello or SeatReplies, nothing else");
  const v1::SeatReply& reply = message.reply();
  if (reply.message().has_hello()) return absl::OkStatus();  // ignored (the connection's counts)
  if (!reply.message().has_decision() && !reply.message().has_absent())
    return absl::InvalidArgumentError("a SeatReply carries a Decision (or an Absent)");
  std::shared_ptr<DialInSeat> seat;
  {
    absl::MutexLock lock(&mu_);
    auto b = bots_.find(bot_id);
    if (b == bots_.end() || b->second.connection != connection)
      return absl::FailedPreconditionError("this connection was replaced by a newer one");
    auto it = seats_.find(reply.seat_id());
    if (it == seats_.end()) {
      if (reply.seat_id() <= 0 || reply.seat_id() > next_seat_id_)
        return absl::InvalidArgumentError(
            absl::StrCat("seat ", reply.seat_id(), " was never given to this bot"));
      return absl::OkStatus();  // ended meanwhile
    }
    if (it->second->bot_id() != bot_id)
      return absl::PermissionDeniedError(
          absl::StrCat("seat ", reply.seat_id(), " is not this bot's"));
    seat = it->second;
  }
  seat->Answer(reply.message());
  return absl::OkStatus();
}

int DialInHub::online_count() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(std::count_if(bots_.begin(), bots_.end(),
                                        [](const auto& b) { return b.second.link != nullptr; }));
}

int DialInHub::seat_count() {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(seats_.size());
}

bool DialInHub::OnlineLocked(int64_t bot_id) {
  auto it = bots_.find(bot_id);
  if (it == bots_.end() || it->second.link == nullptr) return false;
  return !it->second.hosted || !host_syncing_ || host_syncing_(bot_id);
}

bool DialInHub::Online(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  return OnlineLocked(bot_id);
}

absl::Time DialInHub::LastOnline(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  if (OnlineLocked(bot_id)) return absl::InfiniteFuture();
  auto it = bots_.find(bot_id);
  if (it == bots_.end()) return absl::InfinitePast();
  // A host's connection up but not syncing: offline since now, as far as
  // the hub knows (it is not told when the syncing stopped).
  return it->second.link ? absl::Now() : it->second.offline_since;
}

bool DialInHub::PlayedUnhosted(const std::string& match_id, int seat) {
  absl::MutexLock lock(&mu_);
  auto id = seat_ids_.find({match_id, seat});
  if (id == seat_ids_.end()) return false;
  auto it = seats_.find(id->second);
  return it != seats_.end() && it->second->played_unhosted();
}

bool DialInHub::AwaitOnline(int64_t bot_id, absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  auto online = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || OnlineLocked(bot_id);
  };
  // A host's syncing changes without a word to the hub: looked at again
  // every 100 ms.
  while (!online() && absl::Now() < deadline)
    mu_.AwaitWithDeadline(absl::Condition(&online),
                          std::min(deadline, absl::Now() + absl::Milliseconds(100)));
  return OnlineLocked(bot_id);
}

absl::Status DialInHub::Prepare(const std::string& match_id, int seat, int64_t bot_id,
                                const std::string& bot_name) {
  std::shared_ptr<DialInSeat> consumer;
  {
    absl::MutexLock lock(&mu_);
    if (seat_ids_.count({match_id, seat}))
      return absl::AlreadyExistsError(
          absl::StrCat("seat ", seat, " of match ", match_id, " is already prepared"));
    Bot& bot = bots_[bot_id];
    if (static_cast<int>(bot.seats.size()) >= options_.max_seats)
      return absl::ResourceExhaustedError(absl::StrCat(
          "dial-in bot '", bot_name, "' holds ", bot.seats.size(), " seats (the limit)"));
    const int64_t id = ++next_seat_id_;
    consumer = std::make_shared<DialInSeat>(
        id, bot_id, bot.link, bot.hello,
        [this, bot_id, connection = bot.connection] { JoinFellBack(bot_id, connection); },
        bot.hosted);
    if (absl::Status s = relay_->Register(match_id, seat, consumer); !s.ok()) return s;
    bot.seats[id] = consumer;
    seats_[id] = consumer;
    seat_ids_[{match_id, seat}] = id;
    // A new attempt of the seat: given to the host of the bot's connection
    // now (or to the one that connects while it is prepared), unreported.
    const auto key = std::make_pair(match_id, seat);
    if (!seat_hosts_.count(key)) {
      seat_host_order_.push_back(key);
      if (seat_host_order_.size() > kMaxSeatHosts) {
        seat_hosts_.erase(seat_host_order_.front());
        seat_host_order_.pop_front();
      }
    }
    seat_hosts_[key] = SeatHost{bot.link && bot.hosted ? bot.host_id : 0, false};
  }
  return absl::OkStatus();
}

void DialInHub::GiveSeatsToHost(const Bot& bot) {
  if (!bot.hosted || bot.host_id == 0) return;
  for (const auto& [key, id] : seat_ids_) {
    if (!bot.seats.count(id)) continue;
    SeatHost& h = seat_hosts_[key];
    if (h.host_id != bot.host_id) h = SeatHost{bot.host_id, false};
  }
}

absl::Status DialInHub::ClaimSeatReport(const std::string& match_id, int seat, int64_t host_id) {
  absl::MutexLock lock(&mu_);
  auto it = seat_hosts_.find({match_id, seat});
  if (it == seat_hosts_.end() || host_id == 0 || it->second.host_id != host_id)
    return absl::PermissionDeniedError(
        "the arena did not give that seat to a connection of this host");
  if (it->second.reported)
    return absl::AlreadyExistsError("this host has reported that seat already");
  it->second.reported = true;
  return absl::OkStatus();
}

void DialInHub::JoinFellBack(int64_t bot_id, uint64_t connection) {
  absl::MutexLock lock(&mu_);
  auto it = bots_.find(bot_id);
  if (it != bots_.end() && it->second.connection == connection)
    it->second.relayed_until = absl::Now() + options_.direct_retry;
}

bool DialInHub::CanJoinReferee(int64_t bot_id) {
  absl::MutexLock lock(&mu_);
  auto it = bots_.find(bot_id);
  if (it == bots_.end() || !it->second.link || !it->second.hello) return false;
  if (absl::Now() < it->second.relayed_until) return false;
  for (const std::string& feature : it->second.hello->features())
    if (feature == "join-referee") return true;
  return false;
}

absl::Status DialInHub::RouteToReferee(const std::string& match_id, int seat,
                                       const std::string& referee, const std::string& ticket) {
  std::shared_ptr<DialInSeat> consumer;
  {
    absl::MutexLock lock(&mu_);
    auto it = seat_ids_.find({match_id, seat});
    if (it == seat_ids_.end())
      return absl::NotFoundError(absl::StrCat("seat ", seat, " of match ", match_id, " is not prepared"));
    consumer = seats_[it->second];
  }
  consumer->RouteToReferee(referee, ticket);
  return absl::OkStatus();
}

void DialInHub::Release(const std::string& match_id, int seat) {
  std::shared_ptr<DialInSeat> consumer;
  {
    absl::MutexLock lock(&mu_);
    auto it = seat_ids_.find({match_id, seat});
    if (it == seat_ids_.end()) return;
    auto s = seats_.find(it->second);
    if (s != seats_.end()) {
      consumer = s->second;
      bots_[consumer->bot_id()].seats.erase(it->second);
      seats_.erase(s);
    }
    seat_ids_.erase(it);
  }
  relay_->Unregister(match_id, seat);
  if (consumer) consumer->Close("the match is over");
}

}  // namespace tarock::arena::gateway
