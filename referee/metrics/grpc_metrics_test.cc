// GrpcMetrics' interceptors on a real gRPC server and channel on loopback: a
// unary call that succeeds, one that fails, and a server stream, counted and
// timed on both sides with the go-grpc-prometheus names and labels.

#include "referee/metrics/grpc_metrics.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "prometheus/registry.h"
#include "referee/metrics/exposition.h"
#include "tarock/v1/arena.grpc.pb.h"

namespace tarock::metrics {
namespace {

// Two methods of the Arena service, implemented just enough for the test. A
// GetBot for "hold:KEY" is held under KEY in `held_in` (when set).
class TestArena : public v1::Arena::Service {
 public:
  GrpcMetrics* held_in = nullptr;
  grpc::Status GetBot(grpc::ServerContext* context, const v1::GetBotRequest* r,
                      v1::BotInfo* out) override {
    if (held_in != nullptr && r->name().rfind("hold:", 0) == 0)
      held_in->HoldServerCall(context, r->name().substr(5));
    if (r->name() == "missing") return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such bot");
    out->set_name(r->name());
    return grpc::Status::OK;
  }
  grpc::Status ExportRecords(grpc::ServerContext*, const v1::ExportRecordsRequest*,
                             grpc::ServerWriter<v1::ExportedRecord>* writer) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    for (int i = 0; i < 3; ++i) writer->Write(v1::ExportedRecord());
    return grpc::Status::OK;
  }
};

TEST(GrpcMetricsTest, CountsAndTimesCallsOnBothSides) {
  prometheus::Registry server_registry, client_registry;
  GrpcMetrics server_metrics(&server_registry), client_metrics(&client_registry);
  TestArena service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  builder.experimental().SetInterceptorCreators(server_metrics.ServerInterceptors());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_TRUE(server != nullptr && port != 0);
  {
    auto channel = grpc::experimental::CreateCustomChannelWithInterceptors(
        absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials(),
        grpc::ChannelArguments(), client_metrics.ClientInterceptors());
    auto stub = v1::Arena::NewStub(channel);
    for (const char* name : {"a", "b", "missing"}) {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      v1::GetBotRequest request;
      request.set_name(name);
      v1::BotInfo info;
      grpc::Status s = stub->GetBot(&context, request, &info);
      EXPECT_EQ(s.ok(), std::string(name) != "missing");
    }
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    auto reader = stub->ExportRecords(&context, v1::ExportRecordsRequest());
    v1::ExportedRecord record;
    int n = 0;
    while (reader->Read(&record)) ++n;
    EXPECT_TRUE(reader->Finish().ok());
    EXPECT_EQ(n, 3);
  }
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server->Wait();

  const std::string unary =
      "grpc_method=\"GetBot\",grpc_service=\"tarock.v1.Arena\",grpc_type=\"unary\"}";
  const std::string stream =
      "grpc_method=\"ExportRecords\",grpc_service=\"tarock.v1.Arena\",grpc_type=\"server_stream\"}";
  for (auto [side, text] : {std::pair<std::string, std::string>{"server", SerializeMetrics({&server_registry})},
                            {"client", SerializeMetrics({&client_registry})}}) {
    const std::string p = absl::StrCat("grpc_", side, "_");
    EXPECT_TRUE(absl::StrContains(text, absl::StrCat(p, "started_total{", unary, " 3\n"))) << text;
    EXPECT_TRUE(absl::StrContains(text, absl::StrCat(p, "handled_total{grpc_code=\"OK\",", unary, " 2\n")))
        << text;
    EXPECT_TRUE(absl::StrContains(
        text, absl::StrCat(p, "handled_total{grpc_code=\"NotFound\",", unary, " 1\n")))
        << text;
    EXPECT_TRUE(absl::StrContains(text, absl::StrCat(p, "handling_seconds_count{", unary, " 3\n")))
        << text;
    EXPECT_TRUE(absl::StrContains(
        text, absl::StrCat(p, "handled_total{grpc_code=\"OK\",", stream, " 1\n")))
        << text;
    // The stream took at least its 30 ms sleep: not in the buckets up to 25 ms.
    EXPECT_TRUE(absl::StrContains(
        text, absl::StrCat(p, "handling_seconds_bucket{", stream.substr(0, stream.size() - 1),
                           ",le=\"0.025\"} 0\n")))
        << text;
    EXPECT_TRUE(absl::StrContains(
        text, absl::StrCat(p, "handling_seconds_bucket{", stream.substr(0, stream.size() - 1),
                           ",le=\"+Inf\"} 1\n")))
        << text;
  }
}

// A held call (the arena's RunMatch of a duplicate table, docs/security.md
// "Secret deals"): started at once, its code and time only once released,
// under its key alone; a call not held is recorded as it ends.
TEST(GrpcMetricsTest, AHeldClientCallIsRecordedOnlyWhenReleasedItsStartToo) {
  prometheus::Registry client_registry;
  GrpcMetrics client_metrics(&client_registry);
  TestArena service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_TRUE(server != nullptr && port != 0);
  auto channel = grpc::experimental::CreateCustomChannelWithInterceptors(
      absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials(),
      grpc::ChannelArguments(), client_metrics.ClientInterceptors());
  auto stub = v1::Arena::NewStub(channel);
  auto call = [&](const char* name, const char* hold) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (hold != nullptr) client_metrics.HoldClientCall(&context, hold);
    v1::GetBotRequest request;
    request.set_name(name);
    v1::BotInfo info;
    stub->GetBot(&context, request, &info);
    client_metrics.ForgetClientCall(&context);
  };
  call("a", "T1-1");
  call("missing", "T1-1");  // a second attempt of the same table
  call("b", "T1-2");
  const std::string unary =
      "grpc_method=\"GetBot\",grpc_service=\"tarock.v1.Arena\",grpc_type=\"unary\"}";
  // Nothing of a held call shows, its start included: a start counted at
  // once beside a held status would tell how many held calls had ended.
  std::string text = SerializeMetrics({&client_registry});
  EXPECT_FALSE(absl::StrContains(text, "grpc_client_started_total{")) << text;
  EXPECT_FALSE(absl::StrContains(text, "grpc_client_handled_total{")) << text;
  EXPECT_FALSE(absl::StrContains(text, "grpc_client_handling_seconds_count{")) << text;
  call("c", nullptr);  // not held
  client_metrics.ReleaseHeld("T1-1");
  client_metrics.ReleaseHeld("T1-1");  // once only
  client_metrics.ReleaseHeld("nothing held");
  text = SerializeMetrics({&client_registry});
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("grpc_client_handled_total{grpc_code=\"OK\",", unary, " 2\n")))
      << text;
  EXPECT_TRUE(absl::StrContains(
      text, absl::StrCat("grpc_client_handled_total{grpc_code=\"NotFound\",", unary, " 1\n")))
      << text;
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("grpc_client_handling_seconds_count{", unary, " 3\n")))
      << text;
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("grpc_client_started_total{", unary, " 3\n"))) << text;
  client_metrics.ReleaseHeld("T1-2");
  text = SerializeMetrics({&client_registry});
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("grpc_client_handled_total{grpc_code=\"OK\",", unary, " 3\n")))
      << text;
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("grpc_client_handling_seconds_count{", unary, " 4\n")))
      << text;
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("grpc_client_started_total{", unary, " 4\n"))) << text;
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server->Wait();
}

// A server call held from its handler (a bot host's ReportSeatLog), its
// start deferred too (DeferServerStart): nothing of it shows until released;
// one held under a key released already is recorded as it ends.
TEST(GrpcMetricsTest, AHeldServerCallWithADeferredStartShowsNothingUntilReleased) {
  prometheus::Registry registry;
  GrpcMetrics server_metrics(&registry);
  server_metrics.DeferServerStart("GetBot");
  TestArena service;
  service.held_in = &server_metrics;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  builder.experimental().SetInterceptorCreators(server_metrics.ServerInterceptors());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_TRUE(server != nullptr && port != 0);
  auto stub = v1::Arena::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                                                     grpc::InsecureChannelCredentials()));
  auto call = [&](const std::string& name) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::GetBotRequest request;
    request.set_name(name);
    v1::BotInfo info;
    EXPECT_TRUE(stub->GetBot(&context, request, &info).ok());
  };
  const std::string unary =
      "grpc_method=\"GetBot\",grpc_service=\"tarock.v1.Arena\",grpc_type=\"unary\"}";
  // The server records a call after the client has its answer: wait for it.
  auto settled = [&](const std::string& line) {
    for (int i = 0; i < 500; ++i) {
      if (absl::StrContains(SerializeMetrics({&registry}), line)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  };
  call("hold:T1-1");
  call("hold:T1-1");
  call("plain");
  EXPECT_TRUE(settled(absl::StrCat("grpc_server_started_total{", unary, " 1\n")))
      << SerializeMetrics({&registry});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::string text = SerializeMetrics({&registry});
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("grpc_server_started_total{", unary, " 1\n"))) << text;
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("grpc_server_handled_total{grpc_code=\"OK\",", unary, " 1\n")))
      << text;
  server_metrics.ReleaseHeld("T1-1");
  text = SerializeMetrics({&registry});
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("grpc_server_started_total{", unary, " 3\n"))) << text;
  EXPECT_TRUE(absl::StrContains(text, absl::StrCat("grpc_server_handled_total{grpc_code=\"OK\",", unary, " 3\n")))
      << text;
  call("hold:T1-1");  // released already: recorded as it ends
  EXPECT_TRUE(settled(absl::StrCat("grpc_server_handled_total{grpc_code=\"OK\",", unary, " 4\n")))
      << SerializeMetrics({&registry});
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  server->Wait();
}

TEST(GrpcMetricsTest, CodeNamesAreGoGrpcPrometheusSpelling) {
  EXPECT_EQ(GrpcCodeName(grpc::StatusCode::OK), "OK");
  EXPECT_EQ(GrpcCodeName(grpc::StatusCode::CANCELLED), "Canceled");
  EXPECT_EQ(GrpcCodeName(grpc::StatusCode::DEADLINE_EXCEEDED), "DeadlineExceeded");
  EXPECT_EQ(GrpcCodeName(grpc::StatusCode::UNAVAILABLE), "Unavailable");
  EXPECT_EQ(GrpcCodeName(static_cast<grpc::StatusCode>(99)), "Code(99)");
}

TEST(GrpcMetricsTest, SplitsMethodNames) {
  EXPECT_EQ(SplitGrpcMethod("/tarock.v1.Referee/RunMatch"),
            (std::pair<std::string, std::string>{"tarock.v1.Referee", "RunMatch"}));
  EXPECT_EQ(SplitGrpcMethod("odd"), (std::pair<std::string, std::string>{"unknown", "odd"}));
  EXPECT_EQ(SplitGrpcMethod("/NoMethod/"),
            (std::pair<std::string, std::string>{"unknown", "/NoMethod/"}));
}

}  // namespace
}  // namespace tarock::metrics
