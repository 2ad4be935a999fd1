// `tarock check-bot SPEC`: plays a few hands of every variant (or --variants)
// with the bot under test in seat 0 against the reference bots
// (tarock-bot-heuristic and tarock-bot-random beside `tarock`, or --opponents),
// through the real referee (MatchRunner over gRPC), and reports what a bot
// author needs to fix their bot:
//  - every fault (illegal action, malformed answer, timeout, disconnect) with
//    the answer, what the referee played instead, and the state where it
//    happened: the seat's hand, the trick, the legal actions, the request the
//    bot received (JSON, the stdio bridge's format) and the hand record up to
//    that point (`tarock replay -` prints the state);
//  - slow answers (above --slow_ms) with the same state;
//  - a bot that never comes up, with the last lines of its standard error;
//  - a verdict. Exit status 0 when no fault was found, 1 otherwise.
//
// SPEC: HOST:PORT, an executable, py:PATH or stdio:COMMAND (bot_launch.h). A
// bot the tool starts gets a fresh process per variant, and its standard error
// goes to a log whose tail is shown with its faults.
//
// Flags (besides tarock's --hands, --seed, --per_decision_ms, --grace_ms,
// --max_faults, --connect_timeout_ms, --option, --json): --variants, --opponents,
// --slow_ms, --show_faults, --bot_log.
//
// Thread-safety: a command-line entry point; call from main only.

#ifndef TAROCK_REFEREE_TOOLS_CHECK_BOT_H_
#define TAROCK_REFEREE_TOOLS_CHECK_BOT_H_

#include <string>
#include <vector>

namespace tarock {

// Runs `tarock check-bot` with its positional arguments (the SPEC); returns the
// exit status. Reads its flags with Abseil (tarock_main.cc parses them).
int RunCheckBotCommand(const std::vector<std::string>& args);

}  // namespace tarock

#endif  // TAROCK_REFEREE_TOOLS_CHECK_BOT_H_
