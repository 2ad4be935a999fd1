# A complete Tarock Arena bot in awk, through the stdio bridge: it plays every
# variant legally. Each line on standard input is one decision request (JSON,
# see sdk/stdio/README.md); each line we print is our action.
#
#   tarock match --variant slovenian-3p me="stdio:awk -W interactive -f my_bot.awk" r1=... r2=...
#   tarock check-bot "stdio:awk -W interactive -f my_bot.awk"
#   TAROCK_BOT_TOKEN=T tarock-stdio-bridge --connect ARENA:7700 -- awk -W interactive -f my_bot.awk
#
# The idea (the same as the Python and C++ templates, without the trick-taking):
#  - never bid when passing is allowed; otherwise the first legal action;
#  - discard the cheapest card; announce nothing, kontra nothing;
#  - in play: throw the cheapest card we may play.
# Debug output goes to standard error (the bridge keeps it in a log); never print
# anything else to standard output.

# Card points of a card (its traditional value).
function value(card,    rank) {
  if (card ~ /^T/) return (card == "T1" || card == "T21" || card == "T22") ? 5 : 1
  rank = substr(card, 2)
  if (rank == "K") return 5
  if (rank == "Q") return 4
  if (rank == "N") return 3
  if (rank == "J") return 2
  return 1
}

# The legal action starting with `verb` ("play " or "discard ") whose card is
# cheapest; "" when there is none.
function cheapest(verb,    i, best, best_value, card) {
  best = ""
  for (i = 1; i <= n; i++) {
    if (index(legal[i], verb) != 1) continue
    card = substr(legal[i], length(verb) + 1)
    if (best == "" || value(card) < best_value) { best = legal[i]; best_value = value(card) }
  }
  return best
}

{
  phase = ""
  if (match($0, /"phase":"[^"]*"/)) phase = substr($0, RSTART + 9, RLENGTH - 10)
  n = 0
  if (match($0, /"legal_actions":\[[^\]]*\]/)) {
    list = substr($0, RSTART + 17, RLENGTH - 18)
    gsub(/"/, "", list)
    n = split(list, legal, ",")
  }
  answer = (n > 0) ? legal[1] : "pass"
  if (phase == "play") {
    pick = cheapest("play ")
    if (pick != "") answer = pick
  } else if (phase == "discard") {
    pick = cheapest("discard ")
    if (pick != "") answer = pick
  } else {
    for (i = 1; i <= n; i++) if (legal[i] == "pass") answer = "pass"
  }
  print answer
  fflush()
}
