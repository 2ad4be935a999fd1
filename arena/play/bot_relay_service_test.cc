// The arena's Bot service over real gRPC (in process, loopback): a stream for
// a seat nobody holds ends with NOT_FOUND, a registered seat gets every
// message, and its answers come back on the stream in order.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "arena/play/bot_relay_service.h"
#include "arena/play/play_session.h"
#include "arena/play/seat_relay.h"
#include "prometheus/registry.h"
#include "referee/metrics/exposition.h"
#include "referee/metrics/grpc_metrics.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock::arena::play {
namespace {

class RelayServer {
 public:
  // `grpc_metrics` (may be null): the server's, with its interceptors.
  explicit RelayServer(metrics::GrpcMetrics* grpc_metrics = nullptr)
      : service_(&relay_, grpc_metrics) {
    grpc::ServerBuilder b;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    b.RegisterService(&service_);
    if (grpc_metrics != nullptr)
      b.experimental().SetInterceptorCreators(grpc_metrics->ServerInterceptors());
    server_ = b.BuildAndStart();
    stub_ = v1::Bot::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(port_),
                                                 grpc::InsecureChannelCredentials()));
  }
  ~RelayServer() { server_->Shutdown(); }
  SeatRelay relay_;
  BotRelayService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::Bot::Stub> stub_;
};

v1::RefereeMessage Start(const std::string& match, int seat) {
  v1::RefereeMessage m;
  m.mutable_match_start()->set_match_id(match);
  m.mutable_match_start()->set_seat(seat);
  m.mutable_match_start()->set_num_seats(3);
  return m;
}

v1::RefereeMessage Request(int64_t id) {
  v1::RefereeMessage m;
  m.mutable_decision_request()->set_request_id(id);
  m.mutable_decision_request()->set_time_left_ms(10000);
  m.mutable_decision_request()->add_legal_actions("pass");
  m.mutable_decision_request()->add_legal_actions("bid three");
  return m;
}

TEST(BotRelayService, AStreamForASeatNobodyHoldsEndsWithNotFound) {
  RelayServer s;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto stream = s.stub_->Play(&ctx);
  ASSERT_TRUE(stream->Write(Start("P-x", 1)));
  v1::BotMessage in;
  EXPECT_FALSE(stream->Read(&in));
  grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
}

TEST(BotRelayService, RelaysARegisteredSeatBothWays) {
  RelayServer s;
  auto session = std::make_shared<PlaySession>("secret", "P-1", 2);
  ASSERT_TRUE(s.relay_.Register("P-1", 2, session).ok());
  const std::string capability(64, 'f');
  ASSERT_TRUE(s.relay_.Authorize("P-1", 2, capability).ok());
  // Strangers first: no capability, a wrong one. Each is refused and the
  // seat stays free for its referee.
  for (const std::string& guess : {std::string(), std::string(64, 'e')}) {
    grpc::ClientContext bad;
    bad.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (!guess.empty()) bad.AddMetadata("x-tarock-referee-proof", guess);
    auto probe = s.stub_->Play(&bad);
    ASSERT_TRUE(probe->Write(Start("P-1", 2)));
    v1::BotMessage in;
    EXPECT_FALSE(probe->Read(&in));
    EXPECT_EQ(probe->Finish().error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  EXPECT_EQ(session->View()["status"], "waiting");
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  ctx.AddMetadata("x-tarock-referee-proof", capability);
  auto stream = s.stub_->Play(&ctx);
  ASSERT_TRUE(stream->Write(Start("P-1", 2)));
  for (int64_t id = 1; id <= 3; ++id) {
    if (id == 2) {
      // A replay of the referee's capability while its stream is open: refused,
      // and the open stream plays on.
      grpc::ClientContext replay;
      replay.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      replay.AddMetadata("x-tarock-referee-proof", capability);
      auto probe = s.stub_->Play(&replay);
      ASSERT_TRUE(probe->Write(Start("P-1", 2)));
      v1::BotMessage in;
      EXPECT_FALSE(probe->Read(&in));
      EXPECT_EQ(probe->Finish().error_code(), grpc::StatusCode::ALREADY_EXISTS);
    }
    ASSERT_TRUE(stream->Write(Request(id)));
    // The browser's answer, once the request has arrived.
    for (int i = 0; i < 500 && session->View()["request"].is_null(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_FALSE(session->View()["request"].is_null());
    ASSERT_TRUE(session->Act(id, id % 2 ? "pass" : "bid three").ok());
    v1::BotMessage in;
    ASSERT_TRUE(stream->Read(&in));
    EXPECT_EQ(in.decision().request_id(), id);
    EXPECT_EQ(in.decision().action(), id % 2 ? "pass" : "bid three");
  }
  v1::RefereeMessage result;
  result.mutable_match_result()->add_totals(0);
  ASSERT_TRUE(stream->Write(result));
  stream->WritesDone();
  v1::BotMessage in;
  EXPECT_FALSE(stream->Read(&in));
  EXPECT_TRUE(stream->Finish().ok());
  nlohmann::json v = session->View();
  EXPECT_EQ(v["status"], "done");
  EXPECT_EQ(v["decisions"], 3);
  EXPECT_FALSE(v["connected"]);
}

// A relayed seat's stream lasts as long as its match: its server metrics
// (code and time) are held under the match id until the scheduler releases
// them, once the match's end is public (docs/security.md, "Secret deals");
// a stranger's refused stream is counted at once.
TEST(BotRelayService, ASeatsStreamIsCountedOnlyOnceItsMatchIsReleased) {
  prometheus::Registry registry;
  metrics::GrpcMetrics grpc_metrics(&registry);
  RelayServer s(&grpc_metrics);
  auto session = std::make_shared<PlaySession>("secret", "T1-1", 2);
  ASSERT_TRUE(s.relay_.Register("T1-1", 2, session).ok());
  const std::string capability(64, 'f');
  ASSERT_TRUE(s.relay_.Authorize("T1-1", 2, capability).ok());
  {
    grpc::ClientContext stranger;
    stranger.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    auto probe = s.stub_->Play(&stranger);
    ASSERT_TRUE(probe->Write(Start("T1-1", 2)));
    v1::BotMessage in;
    EXPECT_FALSE(probe->Read(&in));
    EXPECT_EQ(probe->Finish().error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  ctx.AddMetadata("x-tarock-referee-proof", capability);
  auto stream = s.stub_->Play(&ctx);
  ASSERT_TRUE(stream->Write(Start("T1-1", 2)));
  v1::RefereeMessage result;
  result.mutable_match_result()->add_totals(0);
  ASSERT_TRUE(stream->Write(result));
  stream->WritesDone();
  v1::BotMessage in;
  EXPECT_FALSE(stream->Read(&in));
  EXPECT_TRUE(stream->Finish().ok());
  const std::string play =
      "grpc_method=\"Play\",grpc_service=\"tarock.v1.Bot\",grpc_type=\"bidi_stream\"}";
  auto text = [&] { return metrics::SerializeMetrics({&registry}); };
  // The server sends its status after the client has it: wait for the refusal.
  for (int i = 0; i < 500 && !absl::StrContains(text(), "PermissionDenied"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(absl::StrContains(text(), absl::StrCat("grpc_server_started_total{", play, " 2\n"))) << text();
  EXPECT_TRUE(absl::StrContains(
      text(), absl::StrCat("grpc_server_handled_total{grpc_code=\"PermissionDenied\",", play, " 1\n")))
      << text();
  EXPECT_FALSE(absl::StrContains(text(), "grpc_server_handled_total{grpc_code=\"OK\"")) << text();
  EXPECT_TRUE(absl::StrContains(text(), absl::StrCat("grpc_server_handling_seconds_count{", play, " 1\n")))
      << text();
  grpc_metrics.ReleaseHeld("T1-1");
  EXPECT_TRUE(absl::StrContains(text(), absl::StrCat("grpc_server_handled_total{grpc_code=\"OK\",", play, " 1\n")))
      << text();
  EXPECT_TRUE(absl::StrContains(text(), absl::StrCat("grpc_server_handling_seconds_count{", play, " 2\n")))
      << text();
}

}  // namespace
}  // namespace tarock::arena::play
