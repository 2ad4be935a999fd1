"""The learned bot's network: a multilayer perceptron in plain numpy (Debian's
python3-numpy; nothing else).

Input: the observation tensor of tarock_engine (encoding version in the weights
file), without the fields listed in DROP, followed by features.py's extra
features (voids shown in the play, the trick's current winner). Two hidden ReLU
layers, then two heads over the variant's fixed action space:

- ``policy``: one logit per action, trained to imitate the heuristic bot
  (cross-entropy over the legal actions);
- ``value``: per action, the value of taking it (the deciding seat's score minus
  the others' mean, divided by 50, with every seat playing on as the heuristic
  bot: selfplay.py), trained by regression.

At the talon choice each head adds a score per group of talon cards: the dot
product of the group's cards (features.talon_groups) with a 54-vector the
hidden layer computes (the tensor has the talon as a set, not its groups). In
the play each head adds, per card, the dot product of the card's features
(features.card_features: does it take the trick, can anything still out beat
it, ...) with weights the hidden layer computes.

The decision (``act``): per phase, the policy head's choice, unless the value
head rates its own best action more than ``margin[phase]`` above it (a margin
of infinity: the policy alone; 0: the value head alone).

Weights are one .npz file: the arrays of KEYS (stored as float16, computed in
float32), the margins, and the metadata variant, encoding_version,
observation_size, num_actions. load() checks them all and raises ValueError
naming what does not fit: a model file that does not load is one clear error,
never a bot that plays garbage.
"""

from __future__ import annotations

import numpy as np

import features as F

KEYS = ("W1", "b1", "W2", "b2", "Wp", "bp", "Wq", "bq", "Tp", "Tq", "Cp", "Cq")
# The observation fields features.card_features and features.team_features read.
CARD_FIELDS = ("hand", "played", "trick", "trick_leader", "own_discards", "declarer", "partner",
               "contract")
NUM_PHASES = 15
# Observation fields left out of the input (slovenian-4p): cards shown to everyone
# (only an open beggar's hand in the Slovenian family) and westfest's custom actions.
DROP = ("shown", "custom")


def input_columns(fields) -> np.ndarray:
    """The observation tensor's columns the network reads (from Encoder.fields)."""
    cols = []
    for name, off, size, *_ in fields:
        if name not in DROP:
            cols.extend(range(off, off + size))
    return np.array(cols, np.int64)


class Model:
    def __init__(self, obs_size: int, num_actions: int, hidden=(256, 256), seed: int = 0,
                 variant: str = "", encoding_version: int = 0, columns=None,
                 talon_offset: int = 0, play_offset: int = 0, fields=None) -> None:
        rng = np.random.default_rng(seed)
        h1, h2 = hidden if isinstance(hidden, (tuple, list)) else (hidden, hidden)
        self.columns = np.arange(obs_size) if columns is None else np.asarray(columns, np.int64)
        n_in = len(self.columns) + F.EXTRA_SIZE + F.TEAM_SIZE

        def layer(i: int, o: int, gain: float = 1.0):
            return (rng.standard_normal((i, o)) * np.sqrt(2.0 / i) * gain).astype(np.float32), \
                np.zeros(o, np.float32)
        self.W1, self.b1 = layer(n_in, h1)
        self.W2, self.b2 = layer(h1, h2)
        self.Wp, self.bp = layer(h2, num_actions, 0.1)
        self.Wq, self.bq = layer(h2, num_actions, 0.1)
        self.Tp = layer(h2, 54, 0.1)[0]
        self.Tq = layer(h2, 54, 0.1)[0]
        self.Cp = layer(h2, F.NUM_CARD_FEATURES, 0.1)[0]
        self.Cq = layer(h2, F.NUM_CARD_FEATURES, 0.1)[0]
        self.play_offset = play_offset
        offs = F.field_offsets(fields) if fields is not None else {}
        self.card_fields = np.array([offs.get(k, (0, 0)) for k in CARD_FIELDS], np.int64)
        self.obs_size = obs_size
        self.num_actions = num_actions
        self.talon_offset = talon_offset
        self.margin = np.full(NUM_PHASES, np.inf, np.float32)
        self.tta = 1   # suit renamings the bot averages over (features.pick_permutations)
        self.variant = variant
        self.encoding_version = encoding_version

    @property
    def params(self):
        return [getattr(self, k) for k in KEYS]

    def offsets(self) -> dict:
        return {k: (int(o), int(n)) for k, (o, n) in zip(CARD_FIELDS, self.card_fields)}

    def inputs(self, obs: np.ndarray, extra: np.ndarray) -> np.ndarray:
        extra = extra.astype(np.float32, copy=False)
        return np.concatenate([obs[:, self.columns].astype(np.float32, copy=False), extra,
                               F.team_features(obs, extra, self.offsets())], axis=1)

    def card_features(self, obs: np.ndarray, extra: np.ndarray) -> np.ndarray:
        return F.card_features(obs, extra, self.offsets())

    def forward(self, x: np.ndarray, talon_rows=None, groups=None, play_rows=None, cards=None):
        """Both heads for input rows x (Model.inputs); talon_rows: the rows at the
        talon choice, groups their (len, 6, 54) talon groups; play_rows: the rows
        in the play, cards their (len, 54, NUM_CARD_FEATURES) card features."""
        h1 = np.maximum(x @ self.W1 + self.b1, 0)
        h2 = np.maximum(h1 @ self.W2 + self.b2, 0)
        logits = h2 @ self.Wp + self.bp
        q = h2 @ self.Wq + self.bq
        if talon_rows is not None and len(talon_rows):
            g = groups.astype(np.float32, copy=False)
            hs = h2[talon_rows]
            lo, hi = self.talon_offset, self.talon_offset + g.shape[1]
            logits[talon_rows, lo:hi] += np.einsum("bnc,bc->bn", g, hs @ self.Tp)
            q[talon_rows, lo:hi] += np.einsum("bnc,bc->bn", g, hs @ self.Tq)
        if play_rows is not None and len(play_rows):
            hs = h2[play_rows]
            lo = self.play_offset
            logits[play_rows, lo:lo + 54] += np.einsum("bck,bk->bc", cards, hs @ self.Cp)
            q[play_rows, lo:lo + 54] += np.einsum("bck,bk->bc", cards, hs @ self.Cq)
        return logits, q, (x, h1, h2, talon_rows, groups, play_rows, cards)

    def grads(self, cache, dlogits: np.ndarray, dq: np.ndarray):
        x, h1, h2, talon_rows, groups, play_rows, cards = cache
        gWp = h2.T @ dlogits
        gWq = h2.T @ dq
        dh2 = dlogits @ self.Wp.T + dq @ self.Wq.T
        gTp = np.zeros_like(self.Tp)
        gTq = np.zeros_like(self.Tq)
        if talon_rows is not None and len(talon_rows):
            g = groups.astype(np.float32, copy=False)
            lo, hi = self.talon_offset, self.talon_offset + g.shape[1]
            hs = h2[talon_rows]
            dup = np.einsum("bn,bnc->bc", dlogits[talon_rows, lo:hi], g)
            duq = np.einsum("bn,bnc->bc", dq[talon_rows, lo:hi], g)
            gTp = hs.T @ dup
            gTq = hs.T @ duq
            dh2[talon_rows] += dup @ self.Tp.T + duq @ self.Tq.T
        gCp = np.zeros_like(self.Cp)
        gCq = np.zeros_like(self.Cq)
        if play_rows is not None and len(play_rows):
            lo = self.play_offset
            hs = h2[play_rows]
            dcp = np.einsum("bc,bck->bk", dlogits[play_rows, lo:lo + 54], cards)
            dcq = np.einsum("bc,bck->bk", dq[play_rows, lo:lo + 54], cards)
            gCp = hs.T @ dcp
            gCq = hs.T @ dcq
            dh2[play_rows] += dcp @ self.Cp.T + dcq @ self.Cq.T
        d2 = dh2 * (h2 > 0)
        gW2 = h1.T @ d2
        d1 = (d2 @ self.W2.T) * (h1 > 0)
        gW1 = x.T @ d1
        return [gW1, d1.sum(0), gW2, d2.sum(0), gWp, dlogits.sum(0), gWq, dq.sum(0), gTp, gTq,
                gCp, gCq]

    def heads(self, obs, mask, extra, phase, groups=None, perms=None):
        """(logits, values) masked to the legal actions (-inf elsewhere). groups:
        (rows, 6, 54) talon groups, used on the rows whose phase is the talon.
        perms: suit renamings (features.suit_permutations) to average the heads
        over (the four suits play alike)."""
        if perms:
            lsum = qsum = 0
            for osrc, asrc, esrc, inv in perms:
                g = None if groups is None else np.asarray(groups)[:, :, inv]
                lg, qq = self._heads(obs[:, osrc], extra[:, esrc], phase, g)
                back_l = np.empty_like(lg)
                back_q = np.empty_like(qq)
                back_l[:, asrc] = lg
                back_q[:, asrc] = qq
                # log-softmax before averaging: the logits' offsets differ per renaming
                z = np.where(mask, back_l, -np.inf)
                z = z - z.max(1, keepdims=True)
                lsum = lsum + (z - np.log(np.exp(z).sum(1, keepdims=True)))
                qsum = qsum + back_q
            return (np.where(mask, lsum / len(perms), -np.inf),
                    np.where(mask, qsum / len(perms), -np.inf))
        lg, qq = self._heads(obs, extra, phase, groups)
        return np.where(mask, lg, -np.inf), np.where(mask, qq, -np.inf)

    def _heads(self, obs, extra, phase, groups=None):
        x = self.inputs(obs, extra)
        phase = np.asarray(phase)
        rows = np.nonzero(phase == 3)[0] if groups is not None else None
        g = None if rows is None else np.asarray(groups)[rows]
        prow = np.nonzero(phase == 6)[0]
        cards = self.card_features(obs[prow], extra[prow]) if len(prow) else None
        logits, q, _ = self.forward(x, rows, g, prow, cards)
        return logits, q

    def act(self, obs, mask, extra, phase, groups=None, margin=None, perms=None) -> np.ndarray:
        """The action per row (int32): the policy's, or the value head's best where
        it beats the policy's choice by more than the phase's margin."""
        logits, q = self.heads(obs, mask, extra, phase, groups, perms)
        a_p = logits.argmax(1)
        a_q = q.argmax(1)
        r = np.arange(len(a_p))
        m = (self.margin if margin is None else np.asarray(margin))[np.asarray(phase)]
        use_q = (q[r, a_q] - q[r, a_p]) > m
        return np.where(use_q, a_q, a_p).astype(np.int32)

    def save(self, path: str) -> None:
        np.savez_compressed(path, **{k: getattr(self, k).astype(np.float16) for k in KEYS},
                            columns=self.columns.astype(np.int16),
                            margin=self.margin.astype(np.float32),
                            tta=np.array(self.tta),
                            talon_offset=np.array(self.talon_offset),
                            play_offset=np.array(self.play_offset),
                            card_fields=self.card_fields.astype(np.int32),
                            variant=np.array(self.variant),
                            encoding_version=np.array(self.encoding_version),
                            observation_size=np.array(self.obs_size),
                            num_actions=np.array(self.num_actions))


def load(path: str, variant: str, encoding_version: int, obs_size: int,
         num_actions: int) -> Model:
    """The model in `path`, checked against the game it must play."""
    try:
        z = np.load(path, allow_pickle=False)
        arrays = {k: z[k].astype(np.float32) for k in KEYS}
        columns = z["columns"].astype(np.int64)
        margin = z["margin"].astype(np.float32)
        tta = int(z["tta"])
        talon_offset = int(z["talon_offset"])
        play_offset = int(z["play_offset"])
        card_fields = z["card_fields"].astype(np.int64)
        meta = {k: z[k].item() for k in ("variant", "encoding_version", "observation_size",
                                          "num_actions")}
    except Exception as e:  # noqa: BLE001 - any unreadable file is one error
        raise ValueError(f"model file {path}: does not load: {e}") from None
    want = {"variant": variant, "encoding_version": encoding_version,
            "observation_size": obs_size, "num_actions": num_actions}
    for k, v in want.items():
        if meta[k] != v:
            raise ValueError(f"model file {path}: {k} is {meta[k]!r}, this game needs {v!r}")
    if columns.ndim != 1 or (len(columns) and (columns.min() < 0 or columns.max() >= obs_size)):
        raise ValueError(f"model file {path}: input columns outside the observation")
    if margin.shape != (NUM_PHASES,) or np.isnan(margin).any():
        raise ValueError(f"model file {path}: margin has shape {margin.shape} or is NaN")
    n_in = len(columns) + F.EXTRA_SIZE + F.TEAM_SIZE
    h1 = arrays["W1"].shape[1] if arrays["W1"].ndim == 2 else -1
    h2 = arrays["W2"].shape[1] if arrays["W2"].ndim == 2 else -1
    shapes = {"W1": (n_in, h1), "b1": (h1,), "W2": (h1, h2), "b2": (h2,),
              "Wp": (h2, num_actions), "bp": (num_actions,), "Wq": (h2, num_actions),
              "bq": (num_actions,), "Tp": (h2, 54), "Tq": (h2, 54),
              "Cp": (h2, F.NUM_CARD_FEATURES), "Cq": (h2, F.NUM_CARD_FEATURES)}
    for k, shape in shapes.items():
        if arrays[k].shape != shape:
            raise ValueError(f"model file {path}: {k} has shape {arrays[k].shape}, "
                             f"the layers need {shape}")
    if not 0 <= talon_offset <= num_actions - F.MAX_GROUPS:
        raise ValueError(f"model file {path}: talon_offset {talon_offset} is outside the actions")
    if not 0 <= play_offset <= num_actions - 54:
        raise ValueError(f"model file {path}: play_offset {play_offset} is outside the actions")
    if card_fields.shape != (len(CARD_FIELDS), 2) or card_fields.min() < 0 or \
            (card_fields.sum(1) > obs_size).any():
        raise ValueError(f"model file {path}: card_fields outside the observation")
    m = Model.__new__(Model)
    for k in KEYS:
        if not np.all(np.isfinite(arrays[k])):
            raise ValueError(f"model file {path}: {k} is not finite")
        setattr(m, k, arrays[k])
    if not 1 <= tta <= 24:
        raise ValueError(f"model file {path}: tta {tta} is not 1..24")
    m.columns, m.margin, m.talon_offset, m.tta = columns, margin, talon_offset, tta
    m.play_offset, m.card_fields = play_offset, card_fields
    m.obs_size, m.num_actions = obs_size, num_actions
    m.variant, m.encoding_version = variant, encoding_version
    return m
