// The Hosting gRPC service (proto/tarock/v1/hosting.proto): a thin class that
// turns requests into HostedBots calls (arena/hosting/hosted_bots.h). Owners
// upload and list versions with the bot's token; the operator issues host
// tokens (admin token); hosts sync, fetch versions and report builds with
// their host token (`authorization: Bearer TOKEN`). Every call passes the
// Admission first; uploads count as registrations (their stricter rate).
// Changes and refusals of authority go to the audit log; tokens never do.
//
// Thread-safety: thread-safe.

#ifndef TAROCK_ARENA_SERVER_HOSTING_SERVICE_H_
#define TAROCK_ARENA_SERVER_HOSTING_SERVICE_H_

#include "arena/hosting/hosted_bots.h"
#include "arena/scheduler/scheduler.h"
#include "arena/server/admission.h"
#include "referee/metrics/grpc_metrics.h"
#include "tarock/v1/hosting.grpc.pb.h"

namespace tarock::arena {

class HostingService final : public v1::Hosting::Service {
 public:
  // All must outlive the service; `admission` and `grpc_metrics` may be
  // null. `grpc_metrics`: the server's; a host's ReportSeatLog (sent when a
  // seat's table has ended) is held in it under the match id until the
  // match's end is public (GrpcMetrics::HoldServerCall; call
  // DeferServerStart("ReportSeatLog") on it before the server starts), as
  // the table's own end is (docs/security.md, "Secret deals").
  HostingService(HostedBots* hosted, Scheduler* scheduler, Store* store, Admission* admission,
                 metrics::GrpcMetrics* grpc_metrics = nullptr)
      : hosted_(hosted),
        scheduler_(scheduler),
        store_(store),
        admission_(admission),
        grpc_metrics_(grpc_metrics) {}

  grpc::Status UploadVersion(grpc::ServerContext*, const v1::UploadVersionRequest* r,
                             v1::VersionInfo* out) override;
  grpc::Status ListVersions(grpc::ServerContext*, const v1::ListVersionsRequest* r,
                            v1::ListVersionsResponse* out) override;
  grpc::Status AddHost(grpc::ServerContext*, const v1::AddHostRequest* r,
                       v1::AddHostResponse* out) override;
  grpc::Status HostSync(grpc::ServerContext*, const v1::HostSyncRequest* r,
                        v1::HostSyncResponse* out) override;
  grpc::Status UploadVersionStream(grpc::ServerContext*,
                                   grpc::ServerReader<v1::UploadVersionRequest>* reader,
                                   v1::VersionInfo* out) override;
  grpc::Status FetchVersion(grpc::ServerContext*, const v1::FetchVersionRequest* r,
                            v1::VersionContent* out) override;
  grpc::Status ReportBuild(grpc::ServerContext*, const v1::ReportBuildRequest* r,
                           v1::VersionInfo* out) override;
  grpc::Status ReportSeatLog(grpc::ServerContext*, const v1::ReportSeatLogRequest* r,
                             v1::ReportSeatLogResponse* out) override;
  grpc::Status GetSeatLog(grpc::ServerContext*, const v1::GetSeatLogRequest* r,
                          v1::SeatLog* out) override;

  // A version as the API shows it (the build log only when `with_log`).
  static v1::VersionInfo ToProto(const VersionRow& v, bool with_log);

 private:
  grpc::Status Admit(grpc::ServerContext* context, const std::string& token,
                     Admission::Kind kind = Admission::Kind::kCall);
  absl::StatusOr<HostRow> Host(grpc::ServerContext* context);
  void Audit(grpc::ServerContext* context, const std::string& actor, const std::string& action,
             const std::string& target, const absl::Status& outcome, const std::string& detail);

  HostedBots* hosted_;
  Scheduler* scheduler_;
  Store* store_;
  Admission* admission_;
  metrics::GrpcMetrics* const grpc_metrics_;
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_HOSTING_SERVICE_H_
