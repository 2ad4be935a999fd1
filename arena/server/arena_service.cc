#include "arena/server/arena_service.h"

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

grpc::Status ArenaService::AddBot(grpc::ServerContext*, const v1::AddBotRequest* r,
                                  v1::AddBotResponse* out) {
  return Reply(scheduler_->AddBot(*r), out);
}
grpc::Status ArenaService::UpdateBot(grpc::ServerContext*, const v1::UpdateBotRequest* r,
                                     v1::BotInfo* out) {
  return Reply(scheduler_->UpdateBot(*r), out);
}
grpc::Status ArenaService::RetireBot(grpc::ServerContext*, const v1::RetireBotRequest* r,
                                     v1::BotInfo* out) {
  return Reply(scheduler_->RetireBot(*r), out);
}
grpc::Status ArenaService::ListBots(grpc::ServerContext*, const v1::ListBotsRequest* r,
                                    v1::ListBotsResponse* out) {
  *out = scheduler_->ListBots(*r);
  return grpc::Status::OK;
}
grpc::Status ArenaService::GetBot(grpc::ServerContext*, const v1::GetBotRequest* r,
                                  v1::BotInfo* out) {
  return Reply(scheduler_->GetBot(r->name(), true), out);
}
grpc::Status ArenaService::StartLadder(grpc::ServerContext*, const v1::StartLadderRequest* r,
                                       v1::LadderInfo* out) {
  return Reply(scheduler_->StartLadder(*r), out);
}
grpc::Status ArenaService::StopLadder(grpc::ServerContext*, const v1::StopLadderRequest* r,
                                      v1::LadderInfo* out) {
  return Reply(scheduler_->StopLadder(*r), out);
}
grpc::Status ArenaService::ListLadders(grpc::ServerContext*, const v1::ListLaddersRequest*,
                                       v1::ListLaddersResponse* out) {
  *out = scheduler_->ListLadders();
  return grpc::Status::OK;
}
grpc::Status ArenaService::RunTournament(grpc::ServerContext*, const v1::RunTournamentRequest* r,
                                         v1::TournamentInfo* out) {
  return Reply(scheduler_->RunTournament(*r), out);
}
grpc::Status ArenaService::GetTournament(grpc::ServerContext*, const v1::GetTournamentRequest* r,
                                         v1::TournamentInfo* out) {
  return Reply(scheduler_->GetTournament(r->id()), out);
}
grpc::Status ArenaService::Leaderboard(grpc::ServerContext*, const v1::LeaderboardRequest* r,
                                       v1::LeaderboardResponse* out) {
  return Reply(scheduler_->Leaderboard(r->variant()), out);
}
grpc::Status ArenaService::GetMatch(grpc::ServerContext*, const v1::GetMatchRequest* r,
                                    v1::ArenaMatch* out) {
  return Reply(scheduler_->GetMatch(r->id(), r->with_record()), out);
}
grpc::Status ArenaService::ListMatches(grpc::ServerContext*, const v1::ListMatchesRequest* r,
                                       v1::ListMatchesResponse* out) {
  return Reply(scheduler_->ListMatches(*r), out);
}
grpc::Status ArenaService::ExportRecords(grpc::ServerContext* context,
                                         const v1::ExportRecordsRequest* r,
                                         grpc::ServerWriter<v1::ExportedRecord>* writer) {
  bool alive = true;
  store_->ForEachDoneMatch([&](const MatchRow& m, const std::vector<SeatRow>&) {
    if (!alive || context->IsCancelled()) return;
    if (!r->variant().empty() && m.variant != r->variant()) return;
    absl::StatusOr<std::string> record = store_->RecordOf(m.id);
    if (!record.ok()) return;
    v1::ExportedRecord out;
    out.set_json_line(*record);
    alive = writer->Write(out);
  });
  return grpc::Status::OK;
}
grpc::Status ArenaService::Status(grpc::ServerContext*, const v1::StatusRequest*,
                                  v1::StatusResponse* out) {
  *out = scheduler_->GetStatus();
  return grpc::Status::OK;
}

grpc::Status ArenaService::StartTest(grpc::ServerContext*, const v1::StartTestRequest* r,
                                     v1::TestInfo* out) {
  return Reply(scheduler_->StartTest(*r), out);
}
grpc::Status ArenaService::GetTest(grpc::ServerContext*, const v1::GetTestRequest* r,
                                   v1::TestInfo* out) {
  return Reply(scheduler_->GetTest(r->id(), r->with_path()), out);
}
grpc::Status ArenaService::ListTests(grpc::ServerContext*, const v1::ListTestsRequest* r,
                                     v1::ListTestsResponse* out) {
  *out = scheduler_->ListTests(*r);
  return grpc::Status::OK;
}
grpc::Status ArenaService::StopTest(grpc::ServerContext*, const v1::StopTestRequest* r,
                                    v1::TestInfo* out) {
  return Reply(scheduler_->StopTest(*r), out);
}

}  // namespace tarock::arena
