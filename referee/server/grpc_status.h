// The one place where absl::Status and grpc::Status meet.
//
// Thread-safety: pure functions.

#ifndef TAROCK_REFEREE_SERVER_GRPC_STATUS_H_
#define TAROCK_REFEREE_SERVER_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include <string>

#include "absl/status/status.h"

namespace tarock {

// Same code (the numeric codes agree), same message.
inline grpc::Status ToGrpcStatus(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

inline absl::Status FromGrpcStatus(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

// "UNAVAILABLE", "RESOURCE_EXHAUSTED", ...
inline std::string GrpcCodeName(grpc::StatusCode code) {
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

}  // namespace tarock

#endif  // TAROCK_REFEREE_SERVER_GRPC_STATUS_H_
