// `tarock-arena-cli test ...`: tests (`tarock compare` as an arena job) over
// the Arena gRPC service.
//
//   test run --variant=V --candidate=BOT --baseline=BOT [--opponents=BOT,...]
//            [--h0=0] [--h1=5] [--alpha=0.05] [--beta=0.05] [--max_deals=20000]
//            [--min_deals=20] [--seed=S] [--options=K=V,...] [--per_decision_ms=MS]
//            [--max_faults=N] [--wait]
//   test list     test show ID [--path]     test stop ID
//
// `test run --wait` prints progress lines on standard error while the test
// runs (it keeps waiting through an arena restart, up to --wait_unreachable_s)
// and the summary on standard output; its exit status is `tarock compare`'s:
// 0 H1, 1 H0, 2 inconclusive (or stopped), 3 an error. Without --wait it
// prints the test's id and exits 0. Other failures exit 1 (3 for `test run`).
//
// Thread-safety: a command-line entry point; call from main only.

#ifndef TAROCK_ARENA_CLI_TEST_COMMAND_H_
#define TAROCK_ARENA_CLI_TEST_COMMAND_H_

#include <string>
#include <vector>

#include "tarock/v1/arena.grpc.pb.h"

namespace tarock::arena {

// The flags `test` reads besides the CLI's shared ones (for `help test`).
std::vector<std::string> TestCommandFlags();

// Runs `test SUB [ARG]` (args[0] is "test"); returns the exit status.
int RunTestCommand(v1::Arena::Stub* stub, const std::vector<std::string>& args);

}  // namespace tarock::arena

#endif  // TAROCK_ARENA_CLI_TEST_COMMAND_H_
