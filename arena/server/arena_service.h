// The Arena gRPC service: a thin class that turns requests into Scheduler calls
// and statuses into grpc::Status in one place (referee/server/grpc_status.h).
// Before any work, every call passes the Admission (rate limits per address and
// per token; RESOURCE_EXHAUSTED with a retry-after trailer otherwise). Every
// change, and every attempt refused for want of the right token, goes into the
// store's audit log with the caller's address.
//
// Thread-safety: thread-safe (the scheduler, the store and the admission are).

#ifndef TAROCK_ARENA_SERVER_ARENA_SERVICE_H_
#define TAROCK_ARENA_SERVER_ARENA_SERVICE_H_

#include "absl/status/status.h"
#include "arena/scheduler/scheduler.h"
#include "arena/server/admission.h"
#include "tarock/v1/arena.grpc.pb.h"

namespace tarock::arena {

class ArenaService final : public v1::Arena::Service {
 public:
  // `admission` may be null (no limits); all must outlive the service.
  ArenaService(Scheduler* scheduler, Store* store, Admission* admission = nullptr)
      : scheduler_(scheduler), store_(store), admission_(admission) {}

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
  grpc::Status CreateEvent(grpc::ServerContext*, const v1::CreateEventRequest* r,
                           v1::CreateEventResponse* out) override;
  grpc::Status ListEvents(grpc::ServerContext*, const v1::ListEventsRequest* r,
                          v1::ListEventsResponse* out) override;
  grpc::Status GetEvent(grpc::ServerContext*, const v1::GetEventRequest* r, v1::EventInfo* out) override;
  grpc::Status JoinEvent(grpc::ServerContext*, const v1::JoinEventRequest* r,
                         v1::JoinEventResponse* out) override;
  grpc::Status EventRoster(grpc::ServerContext*, const v1::EventRosterRequest* r,
                           v1::EventRosterResponse* out) override;
  grpc::Status RegisterRoster(grpc::ServerContext*, const v1::RegisterRosterRequest* r,
                              v1::RegisterRosterResponse* out) override;
  grpc::Status ReissueEntrantToken(grpc::ServerContext*, const v1::ReissueEntrantTokenRequest* r,
                                   v1::JoinEventResponse* out) override;
  grpc::Status EnterHouseBot(grpc::ServerContext*, const v1::EnterHouseBotRequest* r,
                             v1::EventInfo* out) override;
  grpc::Status WithdrawBot(grpc::ServerContext*, const v1::WithdrawBotRequest* r,
                           v1::EventInfo* out) override;
  grpc::Status ExportEvent(grpc::ServerContext*, const v1::ExportEventRequest* r,
                           v1::ExportEventResponse* out) override;
  grpc::Status CloseEvent(grpc::ServerContext*, const v1::CloseEventRequest* r,
                          v1::EventInfo* out) override;
  grpc::Status ListAudit(grpc::ServerContext*, const v1::ListAuditRequest* r,
                         v1::ListAuditResponse* out) override;

 private:
  // OK, or RESOURCE_EXHAUSTED with the trailer retry-after (seconds).
  grpc::Status Admit(grpc::ServerContext* context, const std::string& token,
                     Admission::Kind kind = Admission::Kind::kCall);
  // Writes the audit entry of a change: always when `outcome` is OK, and for
  // refusals of the caller's authority (PERMISSION_DENIED, UNAUTHENTICATED).
  void Audit(grpc::ServerContext* context, const std::string& actor, const std::string& action,
             const std::string& target, const absl::Status& outcome, const std::string& detail);
  // "admin" for the admin token, "anyone" when none is needed, else "unknown".
  std::string AdminActor(const std::string& token) const;

  Scheduler* scheduler_;
  Store* store_;
  Admission* admission_;
};

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_SERVER_ARENA_SERVICE_H_
