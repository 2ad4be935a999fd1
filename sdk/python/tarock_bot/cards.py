"""Cards in the fixed text notation, card points, and who wins a trick.

The notation is the one every part of Tarock Arena uses (docs/architecture.md, "Cards and
actions"): tarocks ``T1``..``T22`` (``T1`` the Pagat, ``T21`` the Mond, ``T22``
the Skis); suits ``H`` hearts, ``D`` diamonds (red), ``C`` clubs, ``S`` spades
(black); ranks ``K Q N J`` (``N`` the knight), red pips ``1 2 3 4``, black pips
``7 8 9 10``; suit first: ``HK``, ``DN``, ``C10``, ``H1``.

Cards are plain strings here. :data:`ALL_CARDS` lists the 54 cards in the
engine's index order (tarocks first, then each suit from weakest to strongest in
the traditional order), and :func:`sort_cards` sorts by that order.

Card points are counted the way the engine counts them: a card of traditional
value v counts 3v - 2 thirds, so the pack makes 210 thirds = 70 points, and a
pile's total is rounded once, 1/3 down and 2/3 up (:func:`card_points`).
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

Card = str
"""A card name such as ``"T22"``, ``"HK"`` or ``"C10"``."""

SUITS: tuple[str, ...] = ("H", "D", "C", "S")
RED_SUITS: frozenset[str] = frozenset({"H", "D"})
TAROCK = "T"
"""What :func:`suit_of` returns for a tarock."""

# Ranks within a colour suit, weakest first, in the traditional order (red 1 is
# the highest pip, black 10 the highest pip).
_RED_RANKS: tuple[str, ...] = ("4", "3", "2", "1", "J", "N", "Q", "K")
_BLACK_RANKS: tuple[str, ...] = ("7", "8", "9", "10", "J", "N", "Q", "K")
_RANK_VALUE = {"K": 5, "Q": 4, "N": 3, "J": 2}

ALL_CARDS: tuple[Card, ...] = tuple(
    [f"T{n}" for n in range(1, 23)]
    + [s + r for s in SUITS for r in (_RED_RANKS if s in RED_SUITS else _BLACK_RANKS)]
)
"""The 54 cards in the engine's index order."""

_INDEX: dict[Card, int] = {c: i for i, c in enumerate(ALL_CARDS)}

PAGAT: Card = "T1"
MOND: Card = "T21"
SKIS: Card = "T22"
TRULA: frozenset[Card] = frozenset({PAGAT, MOND, SKIS})
KINGS: frozenset[Card] = frozenset(s + "K" for s in SUITS)


def is_card(text: str) -> bool:
    """True when ``text`` is a card name in the notation."""
    return text in _INDEX


def check_card(text: str) -> Card:
    """Returns ``text`` if it names a card, else raises ValueError naming it."""
    if text not in _INDEX:
        raise ValueError(f"not a card: {text!r} (want T1..T22 or suit+rank such as HK, C10)")
    return text


def card_index(card: Card) -> int:
    """The engine's index of a card (0..53): tarocks 0..21, then H, D, C, S."""
    return _INDEX[check_card(card)]


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """The cards sorted in the engine's index order."""
    return sorted(cards, key=card_index)


def is_tarock(card: Card) -> bool:
    return check_card(card)[0] == TAROCK


def suit_of(card: Card) -> str:
    """``"T"`` for a tarock, else the suit letter ``"H"``, ``"D"``, ``"C"`` or ``"S"``."""
    return check_card(card)[0]


def rank_of(card: Card) -> str:
    """The rank part: ``"22"`` for ``T22``, ``"K"`` for ``HK``, ``"10"`` for ``C10``."""
    return check_card(card)[1:]


def tarock_number(card: Card) -> int:
    """1..22 for a tarock; ValueError for a suit card."""
    if not is_tarock(card):
        raise ValueError(f"{card} is not a tarock")
    return int(card[1:])


def card_value(card: Card) -> int:
    """The traditional value: kings and the trula (T1, T21, T22) 5, queens 4,
    knights 3, jacks 2, every other card 1."""
    check_card(card)
    if card[0] == TAROCK:
        return 5 if card in TRULA else 1
    return _RANK_VALUE.get(card[1:], 1)


def card_thirds(card: Card) -> int:
    """Card points of one card in thirds: 3 * value - 2."""
    return 3 * card_value(card) - 2


def card_points_thirds(cards: Iterable[Card]) -> int:
    """Exact card points of a pile, in thirds (210 for the whole pack)."""
    return sum(card_thirds(c) for c in cards)


def round_thirds(thirds: int) -> int:
    """Thirds to whole points the traditional way: 1/3 down, 2/3 up."""
    return (thirds + 1) // 3 if thirds >= 0 else -((-thirds + 1) // 3)


def card_points(cards: Iterable[Card]) -> int:
    """Card points of a pile, rounded once (the whole pack makes 70)."""
    return round_thirds(card_points_thirds(cards))


# Red pips weakest first, per value of the variant option ``red_pip_order``
# (the pips always rank below the jack).
_RED_PIP_ORDERS: dict[str, tuple[str, ...]] = {
    "traditional": ("4", "3", "2", "1"),  # 1 > 2 > 3 > 4 (Slovenian, Austrian)
    "numeric": ("1", "2", "3", "4"),      # 4 > 3 > 2 > 1 (Slovenian option)
    "document": ("2", "3", "4", "1"),     # 1 > 4 > 3 > 2 (westfest's default)
}


def strength(card: Card, red_pip_order: str = "traditional") -> int:
    """Trick-taking strength within the card's own suit, higher wins. Tarocks:
    their number. Red pips follow the variant option ``red_pip_order``:
    ``traditional`` (1 > 2 > 3 > 4), ``numeric`` (4 > 3 > 2 > 1) or
    ``document`` (1 > 4 > 3 > 2); an unknown value counts as traditional."""
    suit, rank = suit_of(card), rank_of(card)
    if suit == TAROCK:
        return int(rank)
    if suit in RED_SUITS:
        pips = _RED_PIP_ORDERS.get(red_pip_order, _RED_PIP_ORDERS["traditional"])
        if rank in pips:
            return pips.index(rank)
        return _RED_RANKS.index(rank)
    return _BLACK_RANKS.index(rank)


def trick_winner(
    trick: Sequence[Card],
    *,
    imperator: bool = True,
    red_pip_order: str = "traditional",
    tarocks_trump: bool = True,
) -> Optional[int]:
    """The position (0-based, in play order) of the card that wins ``trick`` so
    far, or None for an empty trick.

    The Slovenian rules: the highest tarock wins, else the highest card of the
    led suit. ``imperator`` (variant option ``imperator=on``): T22, T21 and T1
    in one trick, T1 takes it. ``tarocks_trump=False`` is Colour Valat, where a
    tarock beats only tarocks (and the Imperator applies only to a trick led
    with a tarock). :meth:`tarock_bot.Situation.trick_winner` fills these in
    from the match options and the contract.
    """
    if not trick:
        return None
    led = suit_of(trick[0])
    if imperator and TRULA <= set(trick) and (tarocks_trump or led == TAROCK):
        return list(trick).index(PAGAT)
    best = 0
    for i in range(1, len(trick)):
        c, b = trick[i], trick[best]
        cs, bs = suit_of(c), suit_of(b)
        if tarocks_trump and cs == TAROCK and bs != TAROCK:
            best = i
        elif cs == bs and strength(c, red_pip_order) > strength(b, red_pip_order):
            best = i
    return best


def play_action(card: Card) -> str:
    """The action that plays ``card``: ``"play HK"``."""
    return "play " + check_card(card)


def card_of_action(action: str) -> Optional[Card]:
    """The card of a ``play X`` or ``discard X`` action, else None (also for
    another seat's hidden ``discard ?``)."""
    for prefix in ("play ", "discard "):
        if action.startswith(prefix):
            rest = action[len(prefix):]
            return rest if is_card(rest) else None
    return None
