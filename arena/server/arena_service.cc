#include "arena/server/arena_service.h"

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/server/grpc_status.h"

namespace tarock::arena {
namespace {

template <typename T>
grpc::Status Reply(absl::StatusOr<T> result, T* out) {
  if (!result.ok()) return ToGrpcStatus(result.status());
  *out = std::move(*result);
  return grpc::Status::OK;
}

}  // namespace

grpc::Status ArenaService::Admit(grpc::ServerContext* context, const std::string& token,
                                 Admission::Kind kind) {
  if (admission_ == nullptr) return grpc::Status::OK;
  absl::Duration retry_after;
  // gRPC is never proxied (a proxy would have to speak HTTP/2 end to end).
  absl::Status s = admission_->Admit(Admission::AddressOfGrpcPeer(context->peer()),
                                     /*proxied=*/false, token, kind, &retry_after);
  if (s.ok()) return grpc::Status::OK;
  context->AddTrailingMetadata("retry-after",
                               absl::StrCat(absl::ToInt64Seconds(retry_after)));
  return ToGrpcStatus(s);
}

void ArenaService::Audit(grpc::ServerContext* context, const std::string& actor,
                         const std::string& action, const std::string& target,
                         const absl::Status& outcome, const std::string& detail) {
  if (!outcome.ok() && outcome.code() != absl::StatusCode::kPermissionDenied &&
      outcome.code() != absl::StatusCode::kUnauthenticated)
    return;  // nothing changed, and nobody tried what they may not
  AuditRow row;
  row.actor = actor;
  row.client = Admission::AddressOfGrpcPeer(context->peer());
  if (row.client.empty()) row.client = context->peer();
  row.action = action;
  row.target = target;
  row.outcome = outcome.ok() ? "ok" : absl::StatusCodeToString(outcome.code());
  row.detail = outcome.ok() ? detail : std::string(outcome.message());
  (void)store_->AppendAudit(row);  // the change is made; a full disk shows elsewhere
}

std::string ArenaService::AdminActor(const std::string& token) const {
  if (scheduler_->IsAdminToken(token)) return "admin";
  return token.empty() ? "anyone" : "unknown";
}

grpc::Status ArenaService::AddBot(grpc::ServerContext* context, const v1::AddBotRequest* r,
                                  v1::AddBotResponse* out) {
  if (grpc::Status s = Admit(context, "", Admission::Kind::kRegistration); !s.ok()) return s;
  absl::StatusOr<v1::AddBotResponse> result =
      scheduler_->AddBot(*r, Admission::AddressOfGrpcPeer(context->peer()));
  Audit(context, absl::StrCat("anyone (owner ", r->owner(), ")"), "AddBot",
        absl::StrCat("bot:", r->name()), result.status(),
        absl::StrCat(r->hosted() ? "hosted" : r->dial_in() ? "dial-in" : absl::StrCat("endpoint ", r->endpoint()),
                     "; variants ", absl::StrJoin(r->variants(), ",")));
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::UpdateBot(grpc::ServerContext* context, const v1::UpdateBotRequest* r,
                                     v1::BotInfo* out) {
  if (grpc::Status s = Admit(context, r->token()); !s.ok()) return s;
  absl::StatusOr<v1::BotInfo> result = scheduler_->UpdateBot(*r);
  std::string detail;
  if (!r->endpoint().empty()) absl::StrAppend(&detail, "endpoint ", r->endpoint());
  if (!r->variants().empty())
    absl::StrAppend(&detail, detail.empty() ? "" : "; ", "variants ",
                    absl::StrJoin(r->variants(), ","));
  Audit(context, result.ok() ? absl::StrCat("owner of ", r->name()) : "unknown", "UpdateBot",
        absl::StrCat("bot:", r->name()), result.status(), detail);
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::RetireBot(grpc::ServerContext* context, const v1::RetireBotRequest* r,
                                     v1::BotInfo* out) {
  if (grpc::Status s = Admit(context, r->token()); !s.ok()) return s;
  absl::StatusOr<v1::BotInfo> result = scheduler_->RetireBot(*r);
  Audit(context, result.ok() ? absl::StrCat("owner of ", r->name()) : "unknown", "RetireBot",
        absl::StrCat("bot:", r->name()), result.status(), "retired");
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::ListBots(grpc::ServerContext* context, const v1::ListBotsRequest* r,
                                    v1::ListBotsResponse* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  *out = scheduler_->ListBots(*r);
  return grpc::Status::OK;
}
grpc::Status ArenaService::GetBot(grpc::ServerContext* context, const v1::GetBotRequest* r,
                                  v1::BotInfo* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  return Reply(scheduler_->GetBot(r->name(), true), out);
}
grpc::Status ArenaService::StartLadder(grpc::ServerContext* context,
                                       const v1::StartLadderRequest* r, v1::LadderInfo* out) {
  if (grpc::Status s = Admit(context, r->admin_token()); !s.ok()) return s;
  absl::StatusOr<v1::LadderInfo> result = scheduler_->StartLadder(*r);
  Audit(context, AdminActor(r->admin_token()), "StartLadder",
        result.ok() ? absl::StrCat("ladder:", result->id()) : "ladder", result.status(),
        absl::StrCat("variant ", r->config().variant(), "; hands per match ",
                     r->config().hands_per_match()));
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::StopLadder(grpc::ServerContext* context, const v1::StopLadderRequest* r,
                                      v1::LadderInfo* out) {
  if (grpc::Status s = Admit(context, r->admin_token()); !s.ok()) return s;
  absl::StatusOr<v1::LadderInfo> result = scheduler_->StopLadder(*r);
  Audit(context, AdminActor(r->admin_token()), "StopLadder",
        result.ok() ? absl::StrCat("ladder:", result->id()) : "ladder", result.status(),
        absl::StrCat("variant ", r->variant()));
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::ListLadders(grpc::ServerContext* context, const v1::ListLaddersRequest*,
                                       v1::ListLaddersResponse* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  *out = scheduler_->ListLadders();
  return grpc::Status::OK;
}
grpc::Status ArenaService::RunTournament(grpc::ServerContext* context,
                                         const v1::RunTournamentRequest* r,
                                         v1::TournamentInfo* out) {
  if (grpc::Status s = Admit(context, r->admin_token()); !s.ok()) return s;
  absl::StatusOr<v1::TournamentInfo> result = scheduler_->RunTournament(*r);
  Audit(context, AdminActor(r->admin_token()), "RunTournament",
        result.ok() ? absl::StrCat("tournament:", result->id()) : "tournament", result.status(),
        absl::StrCat("variant ", r->variant(), "; bots ", absl::StrJoin(r->bots(), ",")));
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::GetTournament(grpc::ServerContext* context,
                                         const v1::GetTournamentRequest* r,
                                         v1::TournamentInfo* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  return Reply(scheduler_->GetTournament(r->id()), out);
}
grpc::Status ArenaService::Leaderboard(grpc::ServerContext* context,
                                       const v1::LeaderboardRequest* r,
                                       v1::LeaderboardResponse* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  return Reply(scheduler_->Leaderboard(r->variant(), r->event(), r->rating_model()), out);
}
grpc::Status ArenaService::GetMatch(grpc::ServerContext* context, const v1::GetMatchRequest* r,
                                    v1::ArenaMatch* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  return Reply(scheduler_->GetMatch(r->id(), r->with_record()), out);
}
grpc::Status ArenaService::ListMatches(grpc::ServerContext* context,
                                       const v1::ListMatchesRequest* r,
                                       v1::ListMatchesResponse* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  return Reply(scheduler_->ListMatches(*r), out);
}
grpc::Status ArenaService::ExportRecords(grpc::ServerContext* context,
                                         const v1::ExportRecordsRequest* r,
                                         grpc::ServerWriter<v1::ExportedRecord>* writer) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  bool alive = true;
  store_->ForEachDoneMatch([&](const MatchRow& m, const std::vector<SeatRow>&) {
    if (!alive || context->IsCancelled()) return;
    if (!r->variant().empty() && m.variant != r->variant()) return;
    // Secret deals: a table whose deal another table still plays waits.
    absl::StatusOr<std::string> record = scheduler_->PublicRecordOf(m);
    if (!record.ok()) return;
    v1::ExportedRecord out;
    out.set_json_line(*record);
    alive = writer->Write(out);
  });
  return grpc::Status::OK;
}
grpc::Status ArenaService::Status(grpc::ServerContext* context, const v1::StatusRequest*,
                                  v1::StatusResponse* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  *out = scheduler_->GetStatus();
  return grpc::Status::OK;
}

grpc::Status ArenaService::StartTest(grpc::ServerContext* context, const v1::StartTestRequest* r,
                                     v1::TestInfo* out) {
  if (grpc::Status s = Admit(context, r->admin_token()); !s.ok()) return s;
  absl::StatusOr<v1::TestInfo> result = scheduler_->StartTest(*r);
  Audit(context, AdminActor(r->admin_token()), "StartTest",
        result.ok() ? absl::StrCat("test:", result->id()) : "test", result.status(),
        absl::StrCat("variant ", r->config().variant(), "; candidate ", r->config().candidate(),
                     "; baseline ", r->config().baseline()));
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::GetTest(grpc::ServerContext* context, const v1::GetTestRequest* r,
                                   v1::TestInfo* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  return Reply(scheduler_->GetTest(r->id(), r->with_path()), out);
}
grpc::Status ArenaService::ListTests(grpc::ServerContext* context, const v1::ListTestsRequest* r,
                                     v1::ListTestsResponse* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  *out = scheduler_->ListTests(*r);
  return grpc::Status::OK;
}
grpc::Status ArenaService::StopTest(grpc::ServerContext* context, const v1::StopTestRequest* r,
                                    v1::TestInfo* out) {
  if (grpc::Status s = Admit(context, r->admin_token()); !s.ok()) return s;
  absl::StatusOr<v1::TestInfo> result = scheduler_->StopTest(*r);
  Audit(context, AdminActor(r->admin_token()), "StopTest", absl::StrCat("test:", r->id()),
        result.status(), "stopped");
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::ListAudit(grpc::ServerContext* context, const v1::ListAuditRequest* r,
                                     v1::ListAuditResponse* out) {
  if (grpc::Status s = Admit(context, r->admin_token()); !s.ok()) return s;
  return Reply(scheduler_->ListAudit(*r), out);
}

// Events: the organiser's calls are audited under the event, the entrants'
// sign-ups count as registrations (their own rate limit).
grpc::Status ArenaService::CreateEvent(grpc::ServerContext* context, const v1::CreateEventRequest* r,
                                       v1::CreateEventResponse* out) {
  if (grpc::Status s = Admit(context, r->admin_token()); !s.ok()) return s;
  absl::StatusOr<v1::CreateEventResponse> result = scheduler_->CreateEvent(*r);
  Audit(context, AdminActor(r->admin_token()), "CreateEvent", absl::StrCat("event:", r->config().slug()),
        result.status(), absl::StrCat(r->config().kind(), "; variants ",
                                      absl::StrJoin(r->config().variants(), ",")));
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::ListEvents(grpc::ServerContext* context, const v1::ListEventsRequest*,
                                      v1::ListEventsResponse* out) {
  if (grpc::Status s = Admit(context, ""); !s.ok()) return s;
  *out = scheduler_->ListEvents();
  return grpc::Status::OK;
}
grpc::Status ArenaService::GetEvent(grpc::ServerContext* context, const v1::GetEventRequest* r,
                                    v1::EventInfo* out) {
  if (grpc::Status s = Admit(context, r->organiser_token()); !s.ok()) return s;
  return Reply(scheduler_->GetEvent(*r), out);
}
grpc::Status ArenaService::JoinEvent(grpc::ServerContext* context, const v1::JoinEventRequest* r,
                                     v1::JoinEventResponse* out) {
  if (grpc::Status s = Admit(context, "", Admission::Kind::kRegistration); !s.ok()) return s;
  absl::StatusOr<v1::JoinEventResponse> result = scheduler_->JoinEvent(*r);
  if (result.ok())
    Audit(context, absl::StrCat("entrant ", result->entrant()), "JoinEvent",
          absl::StrCat("event:", result->event()), result.status(), "");
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::EventRoster(grpc::ServerContext* context, const v1::EventRosterRequest* r,
                                       v1::EventRosterResponse* out) {
  if (grpc::Status s = Admit(context, r->organiser_token()); !s.ok()) return s;
  absl::StatusOr<v1::EventRosterResponse> result = scheduler_->EventRoster(*r);
  if (!result.ok())
    Audit(context, "unknown", "EventRoster", absl::StrCat("event:", r->slug()), result.status(), "");
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::RegisterRoster(grpc::ServerContext* context,
                                          const v1::RegisterRosterRequest* r,
                                          v1::RegisterRosterResponse* out) {
  if (grpc::Status s = Admit(context, r->organiser_token(), Admission::Kind::kRegistration); !s.ok())
    return s;
  absl::StatusOr<v1::RegisterRosterResponse> result = scheduler_->RegisterRoster(*r);
  Audit(context, result.ok() ? "organiser" : "unknown", "RegisterRoster",
        absl::StrCat("event:", r->slug()), result.status(), absl::StrCat(r->names_size(), " entrants"));
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::ReissueEntrantToken(grpc::ServerContext* context,
                                               const v1::ReissueEntrantTokenRequest* r,
                                               v1::JoinEventResponse* out) {
  if (grpc::Status s = Admit(context, r->organiser_token()); !s.ok()) return s;
  absl::StatusOr<v1::JoinEventResponse> result = scheduler_->ReissueEntrantToken(*r);
  Audit(context, result.ok() ? "organiser" : "unknown", "ReissueEntrantToken",
        absl::StrCat("event:", r->slug()), result.status(), absl::StrCat("entrant ", r->entrant()));
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::EnterHouseBot(grpc::ServerContext* context,
                                         const v1::EnterHouseBotRequest* r, v1::EventInfo* out) {
  if (grpc::Status s = Admit(context, r->organiser_token()); !s.ok()) return s;
  absl::StatusOr<v1::EventInfo> result = scheduler_->EnterHouseBot(*r);
  Audit(context, result.ok() ? "organiser" : "unknown", "EnterHouseBot",
        absl::StrCat("event:", r->slug()), result.status(), absl::StrCat("bot ", r->bot()));
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::WithdrawBot(grpc::ServerContext* context, const v1::WithdrawBotRequest* r,
                                       v1::EventInfo* out) {
  if (grpc::Status s = Admit(context, r->token()); !s.ok()) return s;
  absl::StatusOr<v1::EventInfo> result = scheduler_->WithdrawBot(*r);
  Audit(context, result.ok() ? "organiser or entrant" : "unknown", "WithdrawBot",
        absl::StrCat("event:", r->slug()), result.status(), absl::StrCat("bot ", r->bot()));
  return Reply(std::move(result), out);
}
grpc::Status ArenaService::ExportEvent(grpc::ServerContext* context, const v1::ExportEventRequest* r,
                                       v1::ExportEventResponse* out) {
  if (grpc::Status s = Admit(context, r->organiser_token()); !s.ok()) return s;
  return Reply(scheduler_->ExportEvent(*r), out);
}
grpc::Status ArenaService::CloseEvent(grpc::ServerContext* context, const v1::CloseEventRequest* r,
                                      v1::EventInfo* out) {
  if (grpc::Status s = Admit(context, r->organiser_token()); !s.ok()) return s;
  absl::StatusOr<v1::EventInfo> result = scheduler_->CloseEvent(*r);
  Audit(context, result.ok() ? "organiser" : "unknown", "CloseEvent",
        absl::StrCat("event:", r->slug()), result.status(), "");
  return Reply(std::move(result), out);
}

}  // namespace tarock::arena
