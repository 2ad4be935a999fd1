// LiveHub (live_hub.h): late joiners get the events so far then the rest in
// order, a hand's steps are dropped when the next starts, the bound, withheld
// matches show no step, the end closes spectators, the feed, many threads.

#include "arena/scheduler/live_hub.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace tarock::arena {
namespace {

class FakeSink : public LiveSink {
 public:
  bool Send(const std::string& event, const std::string& data) override {
    absl::MutexLock lock(&mu_);
    if (closed_ || gone_) return false;
    events_.push_back(event + "|" + data);
    return true;
  }
  void Close() override {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }
  bool closed() const override {
    absl::MutexLock lock(&mu_);
    return closed_ || gone_;
  }
  void Leave() {
    absl::MutexLock lock(&mu_);
    gone_ = true;
  }
  std::vector<std::string> events() const {
    absl::MutexLock lock(&mu_);
    return events_;
  }
  bool was_closed() const {
    absl::MutexLock lock(&mu_);
    return closed_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> events_;
  bool closed_ = false;
  bool gone_ = false;
};

LiveMatchInfo Info(const std::string& id, bool withheld = false) {
  LiveMatchInfo i;
  i.id = id;
  i.variant = "slovenian-4p";
  i.kind = "ladder";
  i.bots = {"a", "b", "c", "d"};
  i.num_hands = 4;
  i.withheld = withheld;
  return i;
}

TEST(LiveHubTest, LateJoinersGetTheEventsSoFarThenTheRest) {
  LiveHub hub;
  auto early = std::make_shared<FakeSink>();
  EXPECT_TRUE(absl::IsNotFound(hub.Watch("M1", early)));
  hub.Begin(Info("M1"));
  ASSERT_TRUE(hub.Watch("M1", early).ok());
  hub.Publish("M1", "hand", "h0");
  hub.Publish("M1", "action", "a0");
  auto late = std::make_shared<FakeSink>();
  ASSERT_TRUE(hub.Watch("M1", late).ok());
  hub.Publish("M1", "action", "a1");
  EXPECT_EQ(early->events(), late->events());
  ASSERT_EQ(late->events().size(), 4u);
  EXPECT_EQ(late->events()[0].substr(0, 6), "match|");
  EXPECT_EQ(late->events()[3], "action|a1");
  EXPECT_EQ(hub.Spectators(), 2u);

  // A new hand drops the last hand's steps, not its summary.
  hub.Publish("M1", "hand_end", "s0");
  hub.Publish("M1", "hand", "h1");
  auto later = std::make_shared<FakeSink>();
  ASSERT_TRUE(hub.Watch("M1", later).ok());
  std::vector<std::string> got = later->events();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1], "hand_end|s0");
  EXPECT_EQ(got[2], "hand|h1");
  EXPECT_EQ(hub.Running().size(), 1u);
  EXPECT_EQ(hub.Running()[0].hands_done, 1);

  hub.End("M1", R"({"status":"done"})");
  EXPECT_TRUE(early->was_closed());
  EXPECT_EQ(early->events().back(), R"(end|{"status":"done"})");
  EXPECT_TRUE(hub.Running().empty());
  hub.Publish("M1", "action", "after the end");  // ignored
  // Still watchable for a while after the end: the events, then closed.
  auto after = std::make_shared<FakeSink>();
  ASSERT_TRUE(hub.Watch("M1", after).ok());
  EXPECT_TRUE(after->was_closed());
  EXPECT_EQ(after->events().back(), R"(end|{"status":"done"})");
}

TEST(LiveHubTest, BoundedPerMatchAndPerSpectators) {
  LiveHubOptions o;
  o.max_events_per_match = 10;
  o.max_spectators_per_match = 2;
  LiveHub hub(o);
  hub.Begin(Info("M"));
  hub.Publish("M", "hand", "h0");
  for (int i = 0; i < 100; ++i) hub.Publish("M", "action", absl::StrCat("a", i));
  auto s1 = std::make_shared<FakeSink>();
  ASSERT_TRUE(hub.Watch("M", s1).ok());
  std::vector<std::string> got = s1->events();
  EXPECT_LE(got.size(), 11u);  // 10 kept + "dropped"
  EXPECT_EQ(got[1], "dropped|{}");
  EXPECT_EQ(got.back(), "action|a99");
  auto s2 = std::make_shared<FakeSink>();
  ASSERT_TRUE(hub.Watch("M", s2).ok());
  auto s3 = std::make_shared<FakeSink>();
  EXPECT_TRUE(absl::IsResourceExhausted(hub.Watch("M", s3)));
  s1->Leave();  // a spectator that went away frees its place
  EXPECT_TRUE(hub.Watch("M", s3).ok());
}

TEST(LiveHubTest, AWithheldMatchShowsNoStepOrScore) {
  LiveHub hub;
  hub.Begin(Info("T1-1", /*withheld=*/true));
  auto s = std::make_shared<FakeSink>();
  ASSERT_TRUE(hub.Watch("T1-1", s).ok());
  hub.Publish("T1-1", "hand", "h0");
  hub.Publish("T1-1", "action", "play HK");
  hub.Publish("T1-1", "hand_end", "scores");
  hub.End("T1-1", R"({"status":"done"})");
  std::vector<std::string> got = s->events();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NE(got[0].find("\"withheld\":true"), std::string::npos);
  EXPECT_EQ(got[1].substr(0, 4), "end|");
}

TEST(LiveHubTest, TheFeedListsRunningMatchesThenStartsAndEnds) {
  LiveHub hub;
  hub.Begin(Info("A"));
  auto feed = std::make_shared<FakeSink>();
  ASSERT_TRUE(hub.WatchFeed(feed).ok());
  hub.Begin(Info("B"));
  hub.End("A", R"({"status":"failed"})");
  std::vector<std::string> got = feed->events();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_NE(got[0].find("running|[{"), std::string::npos);
  EXPECT_NE(got[0].find("\"id\":\"A\""), std::string::npos);
  EXPECT_NE(got[1].find("started|"), std::string::npos);
  EXPECT_NE(got[2].find("\"outcome\":{\"status\":\"failed\"}"), std::string::npos);
  // A match run again (another attempt) starts over and tells its spectators.
  auto s = std::make_shared<FakeSink>();
  ASSERT_TRUE(hub.Watch("B", s).ok());
  hub.Publish("B", "hand", "h0");
  hub.Begin(Info("B"));
  EXPECT_EQ(s->events()[2], "restart|{}");
}

TEST(LiveHubTest, ManyThreadsPublishAndWatch) {
  LiveHub hub;
  for (int m = 0; m < 4; ++m) hub.Begin(Info(absl::StrCat("M", m)));
  std::vector<std::shared_ptr<FakeSink>> sinks;
  for (int i = 0; i < 40; ++i) sinks.push_back(std::make_shared<FakeSink>());
  std::vector<std::thread> threads;
  for (int m = 0; m < 4; ++m)
    threads.emplace_back([&hub, m] {
      hub.Publish(absl::StrCat("M", m), "hand", "h");
      for (int i = 0; i < 500; ++i) hub.Publish(absl::StrCat("M", m), "action", absl::StrCat(i));
    });
  for (int i = 0; i < 40; ++i)
    threads.emplace_back([&hub, &sinks, i] { ASSERT_TRUE(hub.Watch(absl::StrCat("M", i % 4), sinks[i]).ok()); });
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < 40; ++i) {
    // Whenever it joined, a spectator has every step in order, with no gap.
    std::vector<std::string> got = sinks[i]->events();
    ASSERT_EQ(got.back(), "action|499");
    int next = -1;
    for (const std::string& e : got) {
      if (e.rfind("action|", 0) != 0) continue;
      const int k = std::stoi(e.substr(7));
      if (next >= 0) ASSERT_EQ(k, next) << i;
      next = k + 1;
    }
  }
}

}  // namespace
}  // namespace tarock::arena
