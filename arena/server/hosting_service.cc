#include "arena/server/hosting_service.h"

#include <grpcpp/grpcpp.h>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "referee/server/grpc_status.h"

namespace tarock::arena {

v1::VersionInfo HostingService::ToProto(const VersionRow& v, bool with_log) {
  v1::VersionInfo out;
  out.set_id(v.id);
  out.set_bot(v.bot);
  out.set_kind(v.kind);
  out.set_entry(v.entry);
  out.set_sha256(v.sha256);
  out.set_size(v.size);
  out.set_uploaded_at(v.uploaded_at);
  out.set_status(v.status);
  if (with_log) out.set_build_log(v.build_log);
  out.set_ready_at(v.ready_at);
  out.set_interpreter(v.interpreter);
  return out;
}

grpc::Status HostingService::Admit(grpc::ServerContext* context, const std::string& token,
                                   Admission::Kind kind) {
  if (admission_ == nullptr) return grpc::Status::OK;
  absl::Duration retry_after;
  absl::Status s = admission_->Admit(Admission::AddressOfGrpcPeer(context->peer()),
                                     /*proxied=*/false, token, kind, &retry_after);
  if (s.ok()) return grpc::Status::OK;
  context->AddTrailingMetadata("retry-after", absl::StrCat(absl::ToInt64Seconds(retry_after)));
  return ToGrpcStatus(s);
}

void HostingService::Audit(grpc::ServerContext* context, const std::string& actor,
                           const std::string& action, const std::string& target,
                           const absl::Status& outcome, const std::string& detail) {
  if (!outcome.ok() && outcome.code() != absl::StatusCode::kPermissionDenied &&
      outcome.code() != absl::StatusCode::kUnauthenticated)
    return;
  AuditRow row;
  row.actor = actor;
  row.client = Admission::AddressOfGrpcPeer(context->peer());
  if (row.client.empty()) row.client = context->peer();
  row.action = action;
  row.target = target;
  row.outcome = outcome.ok() ? "ok" : absl::StatusCodeToString(outcome.code());
  row.detail = outcome.ok() ? detail : std::string(outcome.message());
  (void)store_->AppendAudit(row);
}

absl::StatusOr<HostRow> HostingService::Host(grpc::ServerContext* context) {
  const auto& metadata = context->client_metadata();
  auto it = metadata.find("authorization");
  std::string token;
  if (it != metadata.end()) {
    std::string value(it->second.data(), it->second.size());
    if (absl::StartsWithIgnoreCase(value, "bearer ")) token = value.substr(7);
  }
  return hosted_->AuthenticateHost(token);
}

grpc::Status HostingService::UploadVersion(grpc::ServerContext* context,
                                           const v1::UploadVersionRequest* r, v1::VersionInfo* out) {
  if (grpc::Status s = Admit(context, r->token(), Admission::Kind::kRegistration); !s.ok()) return s;
  std::string note;
  absl::StatusOr<VersionRow> v =
      hosted_->Upload(r->bot(), r->token(), r->filename(), r->content(), r->kind(), r->entry(),
                      r->reset_rating(), &note);
  Audit(context, v.ok() ? absl::StrCat("owner of ", r->bot()) : "unknown", "UploadVersion",
        absl::StrCat("bot:", r->bot()), v.status(),
        v.ok() ? absl::StrCat("version ", v->id, " ", v->kind, " sha256 ", v->sha256,
                              note.empty() ? "" : " (unchanged)",
                              r->reset_rating() ? " (ratings reset)" : "")
             : "");
  if (!v.ok()) return ToGrpcStatus(v.status());
  *out = ToProto(*v, true);
  out->set_note(note);
  return grpc::Status::OK;
}

grpc::Status HostingService::UploadVersionStream(
    grpc::ServerContext* context, grpc::ServerReader<v1::UploadVersionRequest>* reader,
    v1::VersionInfo* out) {
  v1::UploadVersionRequest first;
  if (!reader->Read(&first))
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "an upload without a first message");
  if (grpc::Status s = Admit(context, first.token(), Admission::Kind::kRegistration); !s.ok())
    return s;
  const int64_t limit = hosted_->options().package.max_upload_bytes;
  auto too_large = [limit](int64_t n) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        absl::StrCat("the upload has ", n, " bytes or more, more than the limit of ",
                                     limit, " (the arena's --max_upload_bytes): nothing stored"));
  };
  if (first.total_bytes() > limit) return too_large(first.total_bytes());
  // The content grows piece by piece; over the limit the call ends at once
  // (the rest of the stream is never read).
  std::string content = std::move(*first.mutable_content());
  if (static_cast<int64_t>(content.size()) > limit) return too_large(static_cast<int64_t>(content.size()));
  if (first.total_bytes() > 0) content.reserve(first.total_bytes());
  v1::UploadVersionRequest piece;
  while (reader->Read(&piece)) {
    if (static_cast<int64_t>(content.size() + piece.content().size()) > limit)
      return too_large(static_cast<int64_t>(content.size() + piece.content().size()));
    content.append(piece.content());
  }
  if (first.total_bytes() > 0 && static_cast<int64_t>(content.size()) != first.total_bytes())
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("the upload ended after ", content.size(), " of ",
                                     first.total_bytes(), " bytes: nothing stored"));
  if (context->IsCancelled())
    return grpc::Status(grpc::StatusCode::CANCELLED, "the upload was cancelled: nothing stored");
  std::string note;
  absl::StatusOr<VersionRow> v =
      hosted_->Upload(first.bot(), first.token(), first.filename(), content, first.kind(),
                      first.entry(), first.reset_rating(), &note);
  Audit(context, v.ok() ? absl::StrCat("owner of ", first.bot()) : "unknown",
        "UploadVersionStream", absl::StrCat("bot:", first.bot()), v.status(),
        v.ok() ? absl::StrCat("version ", v->id, " ", v->kind, " sha256 ", v->sha256,
                              note.empty() ? "" : " (unchanged)",
                              first.reset_rating() ? " (ratings reset)" : "")
             : "");
  if (!v.ok()) return ToGrpcStatus(v.status());
  *out = ToProto(*v, true);
  out->set_note(note);
  return grpc::Status::OK;
}

grpc::Status HostingService::ListVersions(grpc::ServerContext* context,
                                          const v1::ListVersionsRequest* r,
                                          v1::ListVersionsResponse* out) {
  if (grpc::Status s = Admit(context, r->token()); !s.ok()) return s;
  bool owner = false;
  absl::StatusOr<std::vector<VersionRow>> versions = hosted_->Versions(r->bot(), r->token(), &owner);
  if (!versions.ok()) return ToGrpcStatus(versions.status());
  for (const VersionRow& v : *versions) *out->add_versions() = ToProto(v, owner);
  return grpc::Status::OK;
}

grpc::Status HostingService::AddHost(grpc::ServerContext* context, const v1::AddHostRequest* r,
                                     v1::AddHostResponse* out) {
  if (grpc::Status s = Admit(context, r->admin_token(), Admission::Kind::kRegistration); !s.ok())
    return s;
  absl::Status allowed = scheduler_->CheckAdmin(r->admin_token());
  absl::StatusOr<std::string> token =
      allowed.ok() ? hosted_->AddHost(r->name()) : absl::StatusOr<std::string>(allowed);
  Audit(context, scheduler_->IsAdminToken(r->admin_token()) ? "admin" : "anyone", "AddHost",
        absl::StrCat("host:", r->name()), token.status(), "host token issued");
  if (!token.ok()) return ToGrpcStatus(token.status());
  out->set_name(r->name());
  out->set_token(*token);
  return grpc::Status::OK;
}

grpc::Status HostingService::HostSync(grpc::ServerContext* context, const v1::HostSyncRequest* r,
                                      v1::HostSyncResponse* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;  // per address, before the token
  absl::StatusOr<HostRow> host = Host(context);
  if (!host.ok()) {
    Audit(context, "unknown", "HostSync", "host:?", host.status(), "");
    return ToGrpcStatus(host.status());
  }
  for (const HostedBots::Held& h : hosted_->Sync(*host, std::max(0, r->capacity()))) {
    v1::HostedBot* b = out->add_bots();
    b->set_bot(h.bot.name);
    b->set_owner(h.bot.owner);
    if (h.newest) *b->mutable_version() = ToProto(*h.newest, false);
    if (h.ready) *b->mutable_ready() = ToProto(*h.ready, false);
  }
  out->set_sync_ms(absl::ToInt64Milliseconds(hosted_->options().sync_every));
  out->set_host(host->name);
  return grpc::Status::OK;
}

grpc::Status HostingService::FetchVersion(grpc::ServerContext* context,
                                          const v1::FetchVersionRequest* r, v1::VersionContent* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;  // per address, before the token
  absl::StatusOr<HostRow> host = Host(context);
  if (!host.ok()) return ToGrpcStatus(host.status());
  VersionRow v;
  absl::StatusOr<std::string> piece =
      hosted_->FetchPiece(*host, r->id(), r->offset(), r->max_bytes(), &v);
  if (!piece.ok()) return ToGrpcStatus(piece.status());
  *out->mutable_version() = ToProto(v, false);
  out->set_filename(v.filename);
  out->set_content(std::move(*piece));
  out->set_total_bytes(v.size);
  out->set_offset(r->offset());
  return grpc::Status::OK;
}

grpc::Status HostingService::ReportBuild(grpc::ServerContext* context,
                                         const v1::ReportBuildRequest* r, v1::VersionInfo* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;  // per address, before the token
  absl::StatusOr<HostRow> host = Host(context);
  if (!host.ok()) return ToGrpcStatus(host.status());
  absl::StatusOr<VersionRow> v = hosted_->ReportBuild(*host, r->id(), r->ok(), r->log());
  Audit(context, absl::StrCat("host ", host->name), "ReportBuild", absl::StrCat("version:", r->id()),
        v.status(), r->ok() ? "ready" : "failed");
  if (!v.ok()) return ToGrpcStatus(v.status());
  *out = ToProto(*v, true);
  return grpc::Status::OK;
}

grpc::Status HostingService::ReportSeatLog(grpc::ServerContext* context,
                                           const v1::ReportSeatLogRequest* r,
                                           v1::ReportSeatLogResponse*) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;  // per address, before the token
  absl::StatusOr<HostRow> host = Host(context);
  if (!host.ok()) return ToGrpcStatus(host.status());
  std::optional<std::vector<std::pair<int, int>>> slow;
  if (r->decisions_reported()) {
    slow.emplace();
    for (const v1::DecisionPlace& p : r->slow()) slow->emplace_back(p.hand_index(), p.action_index());
  }
  absl::Status reported =
      hosted_->ReportSeatLog(*host, r->bot(), r->match_id(), r->seat(), r->log(), std::move(slow));
  // Sent when the seat's table ended: counted once that end is public (a
  // report refused, for no seat of a match, tells nothing of one).
  if (reported.ok() && grpc_metrics_ != nullptr) grpc_metrics_->HoldServerCall(context, r->match_id());
  return ToGrpcStatus(reported);
}

grpc::Status HostingService::GetSeatLog(grpc::ServerContext* context, const v1::GetSeatLogRequest* r,
                                        v1::SeatLog* out) {
  if (grpc::Status s = Admit(context, r->token()); !s.ok()) return s;
  absl::StatusOr<HostedBots::SeatLogOut> log = hosted_->SeatLogFor(
      r->match_id(), r->bot(), r->token(),
      [this](const MatchRow& m) { return scheduler_->DealPublic(m); });
  if (!log.ok()) return ToGrpcStatus(log.status());
  out->set_match_id(r->match_id());
  out->set_bot(r->bot());
  out->set_seat(log->seat);
  out->set_log(log->log);
  return grpc::Status::OK;
}

}  // namespace tarock::arena
