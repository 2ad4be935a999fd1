// The Arena gRPC service: a thin class that turns requests into Scheduler calls
// and statuses into grpc::Status in one place (referee/server/grpc_status.h).
//
// Thread-safety: thread-safe (the scheduler is).

#ifndef TAROCK_ARENA_SERVER_ARENA_SERVICE_H_
#define TAROCK_ARENA_SERVER_ARENA_SERVICE_H_

#include "arena/scheduler/scheduler.h"
#include "tarock/v1/arena.grpc.pb.h"

namespace tarock::arena {

class ArenaService final : public v1::Arena::Service {
 public:
  ArenaService(Scheduler* scheduler, Store* store) : scheduler_(scheduler), store_(store) {}

  grpc::Status AddBot(grpc::ServerContext*, const v1::AddBotRequest* r, v1::AddBotResponse* out) override;
  grpc::Status UpdateBot(grpc::ServerContext*, const v1::UpdateBotRequest* r, v1::BotInfo* out) override;
  grpc::Status RetireBot(grpc::ServerContext*, const v1::RetireBotRequest* r, v1::BotInfo* out) override;
  grpc::Status ListBots(grpc::ServerContext*, const v1::ListBotsRequest* r, v1::ListBotsResponse* out) override;
  grpc::Status GetBot(grpc::ServerContext*, const v1::GetBotRequest* r, v1::BotInfo* out) override;
  grpc::Status StartLadder(grpc::ServerContext*, const v1::StartLadderRequest* r, v1::LadderInfo* out) override;
  grpc::Status StopLadder(grpc::ServerContext*, const v1::StopLadderRequest* r, v1::LadderInfo* out) override;
  grpc::Status ListLadders(grpc::ServerContext*, const v1::ListLaddersRequest* r, v1::ListLaddersResponse* out) override;
  grpc::Status RunTournament(grpc::ServerContext*, const v1::RunTournamentRequest* r, v1::TournamentInfo* out) override;
  grpc::Status GetTournament(grpc::ServerContext*, const v1::GetTournamentRequest* r, v1::TournamentInfo* out) override;
  grpc::Status Leaderboard(grpc::ServerContext*, const v1::LeaderboardRequest* r, v1::LeaderboardResponse* out) override;
  grpc::Status GetMatch(grpc::ServerContext*, const v1::GetMatchRequest* r, v1::ArenaMatch* out) override;
  grpc::Status ListMatches(grpc::ServerContext*, const v1::ListMatchesRequest* r, v1::ListMatchesResponse* out) override;
  grpc::Status ExportRecords(grpc::ServerContext*, const v1::ExportRecordsRequest* r,
                             grpc::ServerWriter<v1::ExportedRecord>* writer) override;
  grpc::Status Status(grpc::ServerContext*, const v1::StatusRequest* r, v1::StatusResponse* out) override;
  grpc::Status StartTest(grpc::ServerContext*, const v1::StartTestRequest* r, v1::TestInfo* out) override;
  grpc::Status GetTest(grpc::ServerContext*, const v1::GetTestRequest* r, v1::TestInfo* out) override;
  grpc::Status ListTests(grpc::ServerContext*, const v1::ListTestsRequest* r, v1::ListTestsResponse* out) override;
  grpc::Status StopTest(grpc::ServerContext*, const v1::StopTestRequest* r, v1::TestInfo* out) override;

 private:
  Scheduler* scheduler_;
  Store* store_;
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_ARENA_SERVICE_H_
