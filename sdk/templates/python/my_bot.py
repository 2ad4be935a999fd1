"""A complete Tarock Arena bot in Python: it plays every variant legally.

Change ``decide`` to make it play well; ``tarock check-bot py:my_bot.py`` tells
you when it does something wrong.

    tarock match --variant slovenian-4p me=py:my_bot.py r1=... r2=... r3=...
    tarock check-bot py:my_bot.py
    python3 -m tarock_bot serve my_bot.py --listen 127.0.0.1:7801   # by hand

The idea (the same as the C++ and stdio templates):
 - never bid when passing is allowed; otherwise the first legal action;
 - discard the cheapest cards; announce nothing, kontra nothing;
 - in play: take a trick that holds points if a card of ours wins it, with the
   cheapest such card; otherwise throw the cheapest card.

Print debugging output to standard error (``print(..., file=sys.stderr)``):
check-bot shows its last lines next to your bot's faults.
"""

from __future__ import annotations

from tarock_bot import Bot, Situation, card_value, play_action


class MyBot(Bot):
    name = "my-python-bot"

    def decide(self, s: Situation) -> str:
        if s.phase == "play":
            return self.play(s)
        if s.phase == "discard":
            return self.discard(s)
        if s.is_legal("pass"):
            return "pass"
        return s.legal[0]

    def play(self, s: Situation) -> str:
        playable = s.playable_cards
        if not playable:
            return s.legal[0]
        trick = s.trick
        if any(card_value(c) > 1 for c in trick):  # the trick holds points
            # Cards that would win the trick as it stands (the SDK knows the
            # rules: tarocks trump, the Pagat rule, Colour Valat).
            winners = [c for c in playable if s.trick_winner(trick + [c]) == len(trick)]
            if winners:
                return play_action(min(winners, key=card_value))
        return play_action(min(playable, key=card_value))

    def discard(self, s: Situation) -> str:
        options = [a for a in s.legal if a.startswith("discard ")]
        if not options:
            return s.legal[0]
        return min(options, key=lambda a: card_value(a.split()[1]))
