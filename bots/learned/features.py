"""What the learned bot adds to tarock_engine's observation tensor (version 1),
computed from the same observation of the seat (so it sees nothing more):

- ``voids`` (4 relative seats x 5: tarocks, H, D, C, S): 1 where that seat has
  shown it holds none (did not follow the suit led; or did not follow and did
  not trump). The observation tensor keeps each seat's played cards as a set,
  not the order of the tricks, so it cannot tell a void from a discard; the
  heuristic bot reconstructs the tricks for exactly this.
- ``winner`` (4 relative seats + none): the seat winning the current trick so
  far.
- ``talon_rest`` (54): the talon cards the declarer left (out of play), where
  the seat saw the talon: the tensor's ``talon_seen`` cannot tell them from the
  group the declarer took.
- the talon groups (``talon_groups``): at the talon decision the tensor has the
  talon's cards as a set (``talon_seen``), not which group of cards each
  ``talon N`` takes; the model's talon head scores each group from its cards.

Both the bot (from the tarock.v1 Observation it receives) and the training
(from ``State.observation(seat)``, the same message as a dict) call
``extra(history, seat, num_seats, trick_leader, trick)`` with the history as
(seat, action text) pairs. Slovenian family, 3 or 4 seats (every seat plays
every trick); other variants are not supported by this bot.
"""

from __future__ import annotations

import numpy as np

SUITS = "HDCS"
CARDS = [f"T{i}" for i in range(1, 23)] + [
    s + r for s in SUITS for r in (("4", "3", "2", "1") if s in "HD" else ("7", "8", "9", "10"))
    + ("J", "N", "Q", "K")]
CARD_INDEX = {c: i for i, c in enumerate(CARDS)}
EXTRA_SIZE = 4 * 5 + 5 + 54
# Groups of the talon per contract (the talon choice offers this many).
TALON_GROUPS = {"three": 2, "two": 3, "one": 6, "solo-three": 2, "solo-two": 3, "solo-one": 6}
MAX_GROUPS = 6


def suit_of(i: int) -> int:
    """0 for a tarock, 1..4 for H D C S."""
    return 0 if i < 22 else 1 + (i - 22) // 8


def _winner(cards: list) -> int:
    """Position of the winning card in a trick (card indices, play order):
    the highest tarock, else the highest card of the suit led."""
    best = 0
    for p in range(1, len(cards)):
        c, b = cards[p], cards[best]
        if suit_of(c) == suit_of(b):
            if c > b:
                best = p
        elif suit_of(c) == 0:
            best = p
    return best


def extra(history, seat: int, num_seats: int, trick_leader: int, trick, talon=(),
          contract: str = "") -> np.ndarray:
    """The extra features (float32, EXTRA_SIZE) of `seat`: history is a sequence of
    (seat, action text); trick the current trick's cards (text), trick_leader its
    leader (-1 none); talon the talon as the seat sees it (text, "?" unseen) and
    contract the contract's name."""
    out = np.zeros(EXTRA_SIZE, np.float32)
    voids = out[:20].reshape(4, 5)
    cur: list = []
    for s, a in history:
        if a.startswith("talon ") and contract in TALON_GROUPS and len(talon):
            n = TALON_GROUPS[contract]
            g = len(talon) // n
            taken = int(a[6:])
            for k, c in enumerate(talon):
                i = CARD_INDEX.get(c)
                if i is not None and k // g != taken:
                    out[25 + i] = 1
            continue
        if not a.startswith("play "):
            continue
        c = CARD_INDEX.get(a[5:])
        if c is None:
            continue
        if cur:
            led = suit_of(cur[0][1])
            su = suit_of(c)
            if su != led:
                r = (s - seat) % num_seats
                voids[r, led] = 1
                if led != 0 and su != 0:
                    voids[r, 0] = 1
        cur.append((s, c))
        if len(cur) == num_seats:
            cur = []
    if trick and trick_leader >= 0:
        idx = [CARD_INDEX[c] for c in trick]
        w = (trick_leader + _winner(idx)) % num_seats
        out[20 + (w - seat) % num_seats] = 1
    else:
        out[24] = 1
    return out


def talon_groups(talon, legal_talon_count: int) -> np.ndarray:
    """(MAX_GROUPS, 54) float32: row n is the cards `talon n` takes (the talon in
    its order, split into `legal_talon_count` equal groups)."""
    out = np.zeros((MAX_GROUPS, 54), np.float32)
    if legal_talon_count <= 0:
        return out
    g = len(talon) // legal_talon_count
    for n in range(legal_talon_count):
        for c in talon[n * g:(n + 1) * g]:
            i = CARD_INDEX.get(c)
            if i is not None:
                out[n, i] = 1
    return out


def from_dict(o: dict) -> tuple:
    """(extra, talon groups or None) from an observation dict (State.observation)."""
    hist = [(h["seat"], h["action"]) for h in o["history"]]
    x = extra(hist, o["seat"], o["num_seats"], o["trick_leader"], o["trick"], o["talon"],
              o["contract"])
    groups = None
    if o["phase"] == "talon":
        n = sum(1 for a in o["legal"] if a.startswith("talon "))
        groups = talon_groups(o["talon"], n)
    return x, groups


def from_proto(obs, legal) -> tuple:
    """The same from a tarock.v1.Observation and the request's legal actions."""
    hist = [(h.seat, h.action) for h in obs.history]
    x = extra(hist, obs.seat, obs.num_seats, obs.trick_leader, list(obs.trick),
              list(obs.talon), obs.contract)
    groups = None
    if obs.phase == "talon":
        n = sum(1 for a in legal if a.startswith("talon "))
        groups = talon_groups(list(obs.talon), n)
    return x, groups


# --- Per-card features of the play (vectorized over a batch of observation tensors) ----------

CARD_FEATURES = ("wins_now", "wins_last", "points_if_won", "master", "higher_out", "suit_out",
                 "my_suit_len", "voids_in_suit", "points", "leading")
NUM_CARD_FEATURES = len(CARD_FEATURES)
_SUIT = np.array([suit_of(i) for i in range(54)])
_RANK = np.array([i if i < 22 else (i - 22) % 8 for i in range(54)])  # strength within suit
# Counting points of each card (the engine's card thirds / 3, rounded up): kings 5, queens 4,
# knights 3, jacks 2; the trula (Pagat, Mond, Skis) 5; every other card 1.
_POINTS = np.array([5 if i in (0, 20, 21) else 1 for i in range(22)]
                   + [[1, 1, 1, 1, 2, 3, 4, 5][(i - 22) % 8] for i in range(22, 54)], np.float32)
# _STRENGTH[led suit, card]: how strongly the card plays on that lead (0: cannot win).
_STRENGTH = np.zeros((5, 54), np.float32)
for _led in range(5):
    for _c in range(54):
        if _SUIT[_c] == 0:
            _STRENGTH[_led, _c] = 100 + _c
        elif _SUIT[_c] == _led:
            _STRENGTH[_led, _c] = 1 + _RANK[_c]
_SAME_SUIT = (_SUIT[:, None] == _SUIT[None, :]).astype(np.float32)        # (54, 54)
_HIGHER = (_SAME_SUIT * (_RANK[None, :] > _RANK[:, None])).astype(np.float32)  # [c, d]: d beats c
_SUIT_ONEHOT = np.eye(5, dtype=np.float32)[_SUIT]                         # (54, 5)


def field_offsets(fields) -> dict:
    """{name: (offset, size)} from Encoder.fields."""
    return {f[0]: (f[1], f[2]) for f in fields}


def card_features(obs: np.ndarray, extra: np.ndarray, off: dict, num_seats: int = 4) -> np.ndarray:
    """(B, 54, NUM_CARD_FEATURES) float32: for every card, how it would play now,
    from the observation tensor (hand, played, trick, trick leader, talon seen,
    own discards) and the extra features (voids): whether it takes the trick as it
    stands (and surely, as the last to play), the points it would take, whether no
    card still out can beat it in its suit, how many cards of its suit are still
    out and above it, this seat's length in it, how many other seats have shown a
    void in it, its points, and whether the seat leads."""
    B = obs.shape[0]
    o = obs.astype(np.float32, copy=False)
    hand = o[:, slice(off["hand"][0], off["hand"][0] + 54)]
    p0 = off["played"][0]
    played = o[:, p0:p0 + num_seats * 54].reshape(B, num_seats, 54).max(1)
    t0 = off["trick"][0]
    trick = o[:, t0:t0 + num_seats * 54].reshape(B, num_seats, 54)
    l0 = off["trick_leader"][0]
    leader = o[:, l0:l0 + num_seats + 1].argmax(1)                        # relative; S: none
    seen = extra[:, 25:79]                                                  # talon left
    disc = o[:, off["own_discards"][0]:off["own_discards"][0] + 54] if "own_discards" in off else 0
    n_trick = trick.sum((1, 2))
    leading = (n_trick == 0).astype(np.float32)
    in_trick = trick.max(1)                                                # (B, 54)
    # The led card: the leader's card of the trick.
    lead_row = trick[np.arange(B), np.minimum(leader, num_seats - 1)]      # (B, 54)
    led_suit = (lead_row @ _SUIT_ONEHOT).argmax(1)                         # (B,)
    strength = _STRENGTH[led_suit]                                         # (B, 54)
    best = (in_trick * strength).max(1)                                    # (B,)
    wins_now = ((strength > best[:, None]) & (n_trick[:, None] > 0)).astype(np.float32)
    last = (n_trick == num_seats - 1).astype(np.float32)
    trick_pts = in_trick @ _POINTS
    out_cards = np.clip(1 - hand - played - np.clip(seen + disc, 0, 1), 0, 1)  # (B, 54)
    higher_out = out_cards @ _HIGHER.T                                      # (B, 54)
    suit_out = out_cards @ _SAME_SUIT
    my_len = hand @ _SAME_SUIT
    voids = extra[:, 5:20].reshape(B, 3, 5).sum(1)                          # voids of the others
    voids_card = voids @ _SUIT_ONEHOT.T                                     # (B, 54)
    tar = (_SUIT == 0)[None, :]
    f = np.empty((B, 54, NUM_CARD_FEATURES), np.float32)
    f[:, :, 0] = wins_now
    f[:, :, 1] = wins_now * last[:, None]
    f[:, :, 2] = wins_now * (trick_pts[:, None] + _POINTS[None, :]) / 15.0
    f[:, :, 3] = (higher_out == 0)
    f[:, :, 4] = higher_out / np.where(tar, 22.0, 8.0)
    f[:, :, 5] = suit_out / np.where(tar, 22.0, 8.0)
    f[:, :, 6] = my_len / np.where(tar, 12.0, 8.0)
    f[:, :, 7] = voids_card / 3.0
    f[:, :, 8] = _POINTS[None, :] / 5.0
    f[:, :, 9] = leading[:, None]
    return f


# --- Suit symmetry -------------------------------------------------------------------------
# The four suits play alike in the Slovenian family (8 cards each, in card-index order of
# strength, the same points), so renaming the suits of a decision gives another decision of
# the same value: training data x 24.

def _card_map(perm) -> np.ndarray:
    """perm: the new suit (0..3 for H D C S) of each suit; card index -> card index."""
    m = np.arange(54)
    for c in range(22, 54):
        s, k = divmod(c - 22, 8)
        m[c] = 22 + perm[s] * 8 + k
    return m


def suit_permutations(fields, action_names) -> list:
    """For each of the 24 renamings of the suits: (obs columns, action columns, extra
    columns, card columns), each the source index of every new position: new = old[:, src]."""
    import itertools
    out = []
    suit_of_name = {s: i for i, s in enumerate(SUITS)}
    for perm in itertools.permutations(range(4)):
        cm = _card_map(perm)
        inv = np.empty(54, np.int64)
        inv[cm] = np.arange(54)                     # new card -> old card
        n_obs = max(f[1] + f[2] for f in fields)
        osrc = np.arange(n_obs)
        for name, off, size, *_ in fields:
            if name in ("hand", "played", "trick", "talon_seen", "shown", "own_discards"):
                for b in range(size // 54):
                    osrc[off + b * 54: off + (b + 1) * 54] = off + b * 54 + inv
            elif name == "called_king":
                for s in range(4):
                    osrc[off + perm[s]] = off + s
        index = {a: i for i, a in enumerate(action_names)}
        asrc = np.arange(len(action_names))
        for i, a in enumerate(action_names):
            verb, _, arg = a.partition(" ")
            if verb == "call" and arg in suit_of_name:
                asrc[index[f"call {SUITS[perm[suit_of_name[arg]]]}"]] = i
            elif verb in ("play", "discard") and arg in CARD_INDEX:
                asrc[index[f"{verb} {CARDS[cm[CARD_INDEX[arg]]]}"]] = i
        esrc = np.arange(EXTRA_SIZE)
        for r in range(4):
            for s in range(4):
                esrc[r * 5 + 1 + perm[s]] = r * 5 + 1 + s
        esrc[25:79] = 25 + inv
        out.append((osrc, asrc, esrc, inv))
    return out


# --- Teams, from the observation tensor (vectorized) -----------------------------------------
TEAM_SIZE = 3 * 2 + 3
PARTNER_CONTRACTS = (1, 2, 3)   # three, two, one (codec order; 0 is klop, 4.. are solo)


def team_features(obs: np.ndarray, extra: np.ndarray, off: dict, num_seats: int = 4) -> np.ndarray:
    """(B, TEAM_SIZE) float32: for each other seat (relative 1..3), whether this seat
    knows it is on its side, or against it (neither: not known yet); then whether the
    current trick is won so far by its side (itself included), by the other side, or
    by a seat of unknown side. From the declarer, the partner as the seat knows it and
    the contract (klop: every seat alone; solo contracts: the declarer alone)."""
    B = obs.shape[0]
    o = obs.astype(np.float32, copy=False)
    S = num_seats
    dec = o[:, off["declarer"][0]:off["declarer"][0] + S]          # relative one-hot
    par = o[:, off["partner"][0]:off["partner"][0] + S]
    con = o[:, off["contract"][0]:off["contract"][0] + off["contract"][1]].argmax(1)
    none = o[:, off["contract"][0] + off["contract"][1] - 1] > 0
    has_dec = dec.sum(1) > 0
    has_par = par.sum(1) > 0
    klop = (con == 0) & ~none
    partner_c = np.isin(con, PARTNER_CONTRACTS) & ~none
    solo = ~klop & ~partner_c & ~none & has_dec
    me_dec = dec[:, 0] > 0
    me_par = par[:, 0] > 0
    team = np.zeros((B, S), np.float32)
    opp = np.zeros((B, S), np.float32)
    # Klop: everybody against everybody.
    opp[klop] = 1
    # Solo: the declarer alone against the rest.
    m = solo & me_dec
    opp[m] = 1
    m = solo & ~me_dec
    team[m] = 1 - dec[m]
    opp[m] = dec[m]
    # Partner contracts.
    m = partner_c & (me_dec | me_par)
    mate = np.where(me_dec[:, None], par, dec)                     # the other one of the two
    known = m & (has_par | me_par)
    team[known] = mate[known]
    opp[known] = 1 - mate[known]
    m = partner_c & ~me_dec & ~me_par & has_dec
    opp[m] = dec[m] + par[m]
    kn = m & has_par
    team[kn] = 1 - dec[kn] - par[kn]
    team[:, 0] = 0
    opp[:, 0] = 0
    out = np.zeros((B, TEAM_SIZE), np.float32)
    out[:, 0:3] = team[:, 1:4]
    out[:, 3:6] = opp[:, 1:4]
    w = extra[:, 20:25]                                             # winner, relative; 4: none
    has_w = w[:, :4].sum(1) > 0
    wt = (w[:, 0] + (w[:, 1:4] * team[:, 1:4]).sum(1))
    wo = (w[:, 1:4] * opp[:, 1:4]).sum(1)
    out[:, 6] = wt
    out[:, 7] = wo
    out[:, 8] = has_w * (1 - wt - wo)
    return out


def pick_permutations(perms: list, k: int) -> list:
    """k of the 24 suit renamings, spread evenly, the identity first (k <= 1: none)."""
    if k <= 1:
        return []
    return [perms[i] for i in np.linspace(0, len(perms) - 1, k).astype(int)]
