// The shared transport (tarock/transport/*.h): the plaintext policy, reading
// the PEM files, the referee proof, secrets from the environment, and the
// health service of a real server on loopback. TLS end to end is tests/tls_test.sh.

#include "tarock/transport/transport.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "grpc/health/v1/health.grpc.pb.h"
#include "tarock/transport/health.h"
#include "tarock/transport/referee_proof.h"
#include "tarock/v1/tarock.grpc.pb.h"

namespace tarock::transport {
namespace {

TEST(TransportTest, LoopbackAddresses) {
  for (const char* loopback :
       {"127.0.0.1:7801", "127.9.8.7:1", "localhost:80", "LOCALHOST", "bots.localhost:9", "[::1]:7801",
        "::1", "ipv4:127.0.0.1:5", "ipv6:[::1]:5", "dns:///localhost:7", "unix:/tmp/x.sock",
        "unix-abstract:tarock", "[::ffff:127.0.0.1]:3"}) {
    EXPECT_TRUE(IsLoopbackAddress(loopback)) << loopback;
  }
  for (const char* remote : {"0.0.0.0:7801", "[::]:7801", "10.0.0.1:80", "example.org:443",
                             "dns:///example.org:443", "128.0.0.1:1", "[::ffff:10.0.0.1]:3",
                             "localhost.example.org:1"}) {
    EXPECT_FALSE(IsLoopbackAddress(remote)) << remote;
  }
}

TEST(TransportTest, PlaintextOnlyOnLoopbackUnlessAllowed) {
  Transport plain;
  EXPECT_TRUE(plain.ServerCredentials("127.0.0.1:0").ok());
  grpc::ChannelArguments args;
  EXPECT_TRUE(plain.ChannelCredentials("localhost:7801", &args).ok());
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> server =
      plain.ServerCredentials("0.0.0.0:7801");
  EXPECT_EQ(server.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(server.status().message().find("--tls_cert"), absl::string_view::npos);
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> channel =
      plain.ChannelCredentials("arena.example.org:7700", &args);
  EXPECT_EQ(channel.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(channel.status().message().find("--tls_ca"), absl::string_view::npos);
  EXPECT_EQ(plain.Channel("10.1.2.3:7700").status().code(), absl::StatusCode::kFailedPrecondition);

  absl::StatusOr<Transport> allowed = Transport::Create({.allow_plaintext = true});
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  EXPECT_TRUE(allowed->ServerCredentials("0.0.0.0:7801").ok());
  EXPECT_TRUE(allowed->ChannelCredentials("arena.example.org:7700", &args).ok());
  EXPECT_FALSE(allowed->server_tls());
  EXPECT_FALSE(allowed->client_tls());
}

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/transport_test.XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() {
    for (const std::string& file : files_) std::remove(file.c_str());
    rmdir(path_.c_str());
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::string file = path_ + "/" + name;
    std::ofstream(file) << text;
    files_.push_back(file);
    return file;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

TEST(TransportTest, CreateChecksTheFiles) {
  TempDir dir;
  const std::string pem = dir.Write("a.pem", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
  const std::string text = dir.Write("a.txt", "not a certificate\n");

  EXPECT_EQ(Transport::Create({.cert_file = pem}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Transport::Create({.key_file = pem}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Transport::Create({.ca_file = dir.path() + "/missing.pem"}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(Transport::Create({.ca_file = text}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Transport::Create({.client_ca_file = pem}).status().code(),
            absl::StatusCode::kInvalidArgument);

  absl::StatusOr<Transport> client = Transport::Create({.ca_file = pem});
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_TRUE(client->client_tls());
  EXPECT_FALSE(client->server_tls());
  absl::StatusOr<Transport> server = Transport::Create({.cert_file = pem, .key_file = pem});
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_TRUE(server->server_tls());
  EXPECT_FALSE(server->client_tls());
}

TEST(RefereeProofTest, HmacOfMatchAndSeat) {
  // python3 -c "import hmac,hashlib; print(hmac.new(b'secret', b'm-1/2', hashlib.sha256).hexdigest())"
  EXPECT_EQ(RefereeProof("secret", "m-1", 2),
            "5bd6e0b541b8dacd3262d15a863c89a92695d79d27b253b4209e68e8ed21972f");
  EXPECT_EQ(BotRefereeSecret("key", "alice"),
            "1c32a133b7bdb5823b374fbc13d8c1ac2aef545124569391cbfd6675147bd975");
  const std::string proof = RefereeProof("secret", "m-1", 2);
  EXPECT_TRUE(RefereeProofMatches("secret", "m-1", 2, proof));
  EXPECT_FALSE(RefereeProofMatches("secret", "m-1", 3, proof));
  EXPECT_FALSE(RefereeProofMatches("other", "m-1", 2, proof));
  EXPECT_FALSE(RefereeProofMatches("secret", "m-1", 2, ""));
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
}

TEST(TransportTest, SecretFromFlagOrEnv) {
  unsetenv("TAROCK_TRANSPORT_TEST_SECRET");
  EXPECT_EQ(SecretFromFlagOrEnv("", "TAROCK_TRANSPORT_TEST_SECRET"), "");
  setenv("TAROCK_TRANSPORT_TEST_SECRET", "from-env", 1);
  EXPECT_EQ(SecretFromFlagOrEnv("", "TAROCK_TRANSPORT_TEST_SECRET"), "from-env");
  EXPECT_EQ(SecretFromFlagOrEnv("from-flag", "TAROCK_TRANSPORT_TEST_SECRET"), "from-flag");
  unsetenv("TAROCK_TRANSPORT_TEST_SECRET");
}

TEST(HealthTest, ServingAndNotServing) {
  EnableHealthService();
  Transport plain;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", *plain.ServerCredentials("127.0.0.1:0"), &port);
  ::tarock::v1::Bot::Service bot;  // a server needs one service besides health's
  builder.RegisterService(&bot);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  ASSERT_GT(port, 0);
  SetServing(*server, true, {"tarock.v1.Bot"});

  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      plain.Channel("127.0.0.1:" + std::to_string(port));
  ASSERT_TRUE(channel.ok()) << channel.status();
  auto stub = grpc::health::v1::Health::NewStub(*channel);
  auto check = [&](const std::string& service) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    grpc::health::v1::HealthCheckRequest request;
    request.set_service(service);
    grpc::health::v1::HealthCheckResponse response;
    grpc::Status status = stub->Check(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.status();
  };
  EXPECT_EQ(check(""), grpc::health::v1::HealthCheckResponse::SERVING);
  EXPECT_EQ(check("tarock.v1.Bot"), grpc::health::v1::HealthCheckResponse::SERVING);
  SetServing(*server, false, {"tarock.v1.Bot"});
  EXPECT_EQ(check(""), grpc::health::v1::HealthCheckResponse::NOT_SERVING);
  EXPECT_EQ(check("tarock.v1.Bot"), grpc::health::v1::HealthCheckResponse::NOT_SERVING);
  server->Shutdown();
}

}  // namespace
}  // namespace tarock::transport
