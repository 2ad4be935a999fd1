// What every `tarock-arena-cli` command prints the same way: a failure as
// one line on standard error ("tarock-arena-cli: ...", with the gRPC code's
// name for a call that failed), a response as protobuf's JSON (--json), and
// the deadline of each call.
//
// Thread-safety: command-line helpers; call from main only.

#ifndef TAROCK_ARENA_CLI_CLI_OUTPUT_H_
#define TAROCK_ARENA_CLI_CLI_OUTPUT_H_

#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "referee/server/grpc_status.h"

namespace tarock::arena::cli {

// Prints `message` as one line on standard error; returns `status`.
inline int Fail(absl::string_view message, int status = 1) {
  std::cerr << "tarock-arena-cli: " << message << "\n";
  return status;
}

// A failed call: "CODE_NAME: message".
inline int Fail(const grpc::Status& s, int status = 1) {
  return Fail(absl::StrCat(GrpcCodeName(s.error_code()), ": ", s.error_message()), status);
}

// The response in protobuf's JSON mapping, field names as in the .proto.
inline void PrintJson(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.add_whitespace = true;
  o.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  std::cout << out;
}

// A call's context with the CLI's 30 s deadline.
inline std::unique_ptr<grpc::ClientContext> Context() {
  auto c = std::make_unique<grpc::ClientContext>();
  c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return c;
}

}  // namespace tarock::arena::cli

#endif  // TAROCK_ARENA_CLI_CLI_OUTPUT_H_
