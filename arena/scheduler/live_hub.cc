#include "arena/scheduler/live_hub.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace tarock::arena {

std::string LiveHub::InfoJson(const LiveMatchInfo& info) {
  nlohmann::json j;
  j["id"] = info.id;
  j["variant"] = info.variant;
  j["kind"] = info.kind;
  j["ladder_id"] = info.ladder_id;
  j["tournament_id"] = info.tournament_id;
  j["bots"] = info.bots;
  j["num_hands"] = info.num_hands;
  j["withheld"] = info.withheld;
  j["started_ms"] = info.started_ms;
  j["hands_done"] = info.hands_done;
  return j.dump();
}

void LiveHub::SendAll(Match& m, const std::string& event, const std::string& data) {
  m.sinks.erase(std::remove_if(m.sinks.begin(), m.sinks.end(),
                               [&](const std::shared_ptr<LiveSink>& s) { return !s->Send(event, data); }),
                m.sinks.end());
}

void LiveHub::FeedLocked(const std::string& event, const std::string& data) {
  feed_.erase(std::remove_if(feed_.begin(), feed_.end(),
                             [&](const std::shared_ptr<LiveSink>& s) { return !s->Send(event, data); }),
              feed_.end());
}

void LiveHub::SweepLocked(absl::Time now) {
  for (auto it = matches_.begin(); it != matches_.end();) {
    if (it->second.ended && now - it->second.ended_at > options_.keep_finished) {
      it = matches_.erase(it);
    } else {
      ++it;
    }
  }
}

void LiveHub::Begin(const LiveMatchInfo& info) {
  absl::MutexLock lock(&mu_);
  SweepLocked(absl::Now());
  Match& m = matches_[info.id];
  if (!m.events.empty()) SendAll(m, "restart", "{}");
  m.info = info;
  m.info.hands_done = 0;
  m.ended = false;
  m.dropped = false;
  m.events.clear();
  const std::string header = InfoJson(m.info);
  m.events.push_back({"match", header});
  SendAll(m, "match", header);
  FeedLocked("started", header);
}

void LiveHub::Publish(const std::string& match_id, const std::string& event, const std::string& data) {
  absl::MutexLock lock(&mu_);
  auto it = matches_.find(match_id);
  if (it == matches_.end()) return;
  Match& m = it->second;
  if (m.ended || m.info.withheld) return;
  if (event == "hand") {
    // A new hand: the steps of the last one go (its summary stays).
    m.events.erase(std::remove_if(m.events.begin() + 1, m.events.end(),
                                  [](const Event& e) { return e.event == "hand" || e.event == "action"; }),
                   m.events.end());
  } else if (event == "hand_end") {
    ++m.info.hands_done;
  }
  if (m.events.size() >= options_.max_events_per_match) {
    // Drop the oldest step (never the header or a hand's summary).
    auto step = std::find_if(m.events.begin() + 1, m.events.end(),
                             [](const Event& e) { return e.event == "action"; });
    if (step != m.events.end()) {
      m.events.erase(step);
      m.dropped = true;
    }
  }
  if (m.events.size() < options_.max_events_per_match) m.events.push_back({event, data});
  SendAll(m, event, data);
}

void LiveHub::End(const std::string& match_id, const std::string& outcome_json) {
  absl::MutexLock lock(&mu_);
  auto it = matches_.find(match_id);
  if (it == matches_.end() || it->second.ended) return;
  Match& m = it->second;
  m.ended = true;
  m.ended_at = absl::Now();
  m.events.push_back({"end", outcome_json});
  SendAll(m, "end", outcome_json);
  for (const std::shared_ptr<LiveSink>& s : m.sinks) s->Close();
  m.sinks.clear();
  nlohmann::json j = nlohmann::json::parse(InfoJson(m.info));
  j["outcome"] = nlohmann::json::parse(outcome_json, nullptr, false);
  FeedLocked("finished", j.dump());
}

void LiveHub::EndWithheld(const std::string& outcome_json) {
  std::vector<std::string> ids;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, m] : matches_)
      if (m.info.withheld && !m.ended) ids.push_back(id);
  }
  for (const std::string& id : ids) End(id, outcome_json);
}

bool LiveHub::IsRunning(const std::string& match_id) {
  absl::MutexLock lock(&mu_);
  auto it = matches_.find(match_id);
  return it != matches_.end() && !it->second.ended;
}

void LiveHub::Announce(const std::string& event, const std::string& data) {
  absl::MutexLock lock(&mu_);
  FeedLocked(event, data);
}

absl::Status LiveHub::Watch(const std::string& match_id, std::shared_ptr<LiveSink> sink) {
  absl::MutexLock lock(&mu_);
  SweepLocked(absl::Now());
  auto it = matches_.find(match_id);
  if (it == matches_.end()) return absl::NotFoundError("the match is not being played");
  Match& m = it->second;
  m.sinks.erase(std::remove_if(m.sinks.begin(), m.sinks.end(),
                               [](const std::shared_ptr<LiveSink>& s) { return s->closed(); }),
                m.sinks.end());
  if (!m.ended && m.sinks.size() >= options_.max_spectators_per_match)
    return absl::ResourceExhaustedError("too many spectators of this match");
  for (size_t i = 0; i < m.events.size(); ++i) {
    if (!sink->Send(m.events[i].event, m.events[i].data)) return absl::OkStatus();
    if (i == 0 && m.dropped) sink->Send("dropped", "{}");
  }
  if (m.ended) {
    sink->Close();
  } else {
    m.sinks.push_back(std::move(sink));
  }
  return absl::OkStatus();
}

absl::Status LiveHub::WatchFeed(std::shared_ptr<LiveSink> sink) {
  absl::MutexLock lock(&mu_);
  SweepLocked(absl::Now());
  feed_.erase(std::remove_if(feed_.begin(), feed_.end(),
                             [](const std::shared_ptr<LiveSink>& s) { return s->closed(); }),
              feed_.end());
  if (feed_.size() >= options_.max_feed_subscribers)
    return absl::ResourceExhaustedError("too many live feeds open");
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [id, m] : matches_)
    if (!m.ended) list.push_back(nlohmann::json::parse(InfoJson(m.info)));
  if (!sink->Send("running", list.dump())) return absl::OkStatus();
  feed_.push_back(std::move(sink));
  return absl::OkStatus();
}

std::vector<LiveMatchInfo> LiveHub::Running() {
  absl::MutexLock lock(&mu_);
  std::vector<LiveMatchInfo> out;
  for (const auto& [id, m] : matches_)
    if (!m.ended) out.push_back(m.info);
  std::sort(out.begin(), out.end(),
            [](const LiveMatchInfo& a, const LiveMatchInfo& b) { return a.started_ms < b.started_ms; });
  return out;
}

size_t LiveHub::Spectators() {
  absl::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [id, m] : matches_) n += m.sinks.size();
  return n;
}

}  // namespace tarock::arena
