"""Training data from the arena's records (docs/python.md, "Records").

Reads what `tarock-arena-cli export` prints (one match record per line),
what `tarock match --record FILE` writes (one match record), and single hand
records (`tarock deal`, State.record()), and replays every hand through the
engine, yielding one Decision per action: what the deciding seat saw (the
observation tensor, optionally the information-state tensor, the legal mask,
the phase), the action it chose (an index of the action space) and the score
that seat made in the hand. Nothing is taken from the record but the deal and
the actions, so a decision's tensors are exactly those a bot at that seat would
have been given (the encodings are computed from the seat's observation).

    from tarock_engine import records
    for d in records.decisions("records.jsonl", seat=None):
        train(d.observation, d.mask, d.action, d.score)
    state = records.state_at(hand_record, k)   # before the k-th action
"""

import io
import json
from typing import Iterator, NamedTuple, Optional, Union

import numpy as np

from tarock_engine import _core


class Decision(NamedTuple):
    observation: np.ndarray       # float32, Encoder.observation_size
    info_state: Optional[np.ndarray]  # float32, when asked for
    mask: np.ndarray              # bool, the legal actions
    action: int                   # index of the action space
    seat: int                     # the seat that decided
    phase: int                    # index of tarock_engine.PHASES
    score: float                  # that seat's score of the hand (radli applied)
    hand: int                     # the hand's index among the hands read
    k: int                        # the action's index in its hand


def _lines(source) -> Iterator[str]:
    if isinstance(source, (dict, list)):
        yield json.dumps(source)
        return
    if hasattr(source, "read"):
        text = source.read()
    elif isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        text = source
    else:
        with open(source, encoding="utf-8") as f:
            text = f.read()
    text = text.strip()
    if not text:
        return
    # One JSON document (a match or hand record, possibly indented) or JSONL.
    try:
        json.loads(text)
        yield text
        return
    except ValueError:
        pass
    for n, line in enumerate(io.StringIO(text), 1):
        line = line.strip()
        if line:
            yield line


def hand_records(source, variant: Optional[str] = None) -> Iterator[dict]:
    """Every hand record in `source` (a path, a file, JSON text, or a parsed
    record): match records ({"deals": [...]}) are split into their hands.
    Only hands of `variant` when it is given. A malformed line raises
    ValueError naming its number."""
    for n, line in enumerate(_lines(source), 1):
        try:
            doc = json.loads(line)
        except ValueError as e:
            raise ValueError(f"record line {n}: not JSON: {e}") from None
        docs = doc if isinstance(doc, list) else [doc]
        for d in docs:
            if not isinstance(d, dict):
                raise ValueError(f"record line {n}: not a record object")
            hands = d.get("deals", [d]) if "deals" in d else [d]
            for h in hands:
                if "variant" not in h and "variant" in d:
                    h = dict(h, variant=d["variant"], options=d.get("options", {}))
                if "actions" not in h:
                    raise ValueError(f"record line {n}: a hand without actions")
                if variant is None or h.get("variant") == variant:
                    yield h


_games = {}


def _game(record: dict):
    key = (record["variant"], json.dumps(record.get("options", {}), sort_keys=True))
    g = _games.get(key)
    if g is None:
        g = _core.Game(record["variant"], {k: str(v) for k, v in record.get("options", {}).items()})
        _games[key] = (g, _core.Encoder(g))
        g = _games[key]
    return g


def state_at(record: Union[dict, str], k: int):
    """The State of a hand record before its k-th action (0: the deal; the
    number of actions: the end). Raises ValueError for k out of range or an
    action that does not replay."""
    if isinstance(record, str):
        record = json.loads(record)
    n = len(record["actions"])
    if not 0 <= k <= n:
        raise ValueError(f"k must be in [0, {n}], not {k}")
    game, _ = _game(record)
    return game.from_record(json.dumps(record), k)


def decisions(source, seat: Optional[int] = None, variant: Optional[str] = None,
              info_state: bool = False) -> Iterator[Decision]:
    """One Decision per action of every hand in `source` (see hand_records),
    for the deciding `seat` only when given (else every seat)."""
    for h_index, record in enumerate(hand_records(source, variant)):
        game, enc = _game(record)
        state = game.from_record(json.dumps(record), 0)
        pending = []
        for k, text in enumerate(record["actions"]):
            who = state.current_seat
            if seat is None or who == seat:
                pending.append((
                    enc.observation(state, who),
                    enc.info_state(state, who) if info_state else None,
                    enc.mask(state, who),
                    game.action_index(text),
                    who,
                    enc.phase(state),
                    k))
            state.apply(text)
        scores = record.get("scores") or state.scores
        for obs, info, mask, action, who, phase, k in pending:
            yield Decision(obs, info, mask, action, who, phase, float(scores[who]), h_index, k)


def arrays(source, seat: Optional[int] = None, variant: Optional[str] = None):
    """decisions() stacked into numpy arrays: a dict of observation (N, F),
    mask (N, A), action, seat, phase, score (N,)."""
    obs, masks, acts, seats, phases, scores = [], [], [], [], [], []
    for d in decisions(source, seat, variant):
        obs.append(d.observation)
        masks.append(d.mask)
        acts.append(d.action)
        seats.append(d.seat)
        phases.append(d.phase)
        scores.append(d.score)
    return {
        "observation": np.asarray(obs, dtype=np.float32),
        "mask": np.asarray(masks, dtype=bool),
        "action": np.asarray(acts, dtype=np.int32),
        "seat": np.asarray(seats, dtype=np.int32),
        "phase": np.asarray(phases, dtype=np.int32),
        "score": np.asarray(scores, dtype=np.float32),
    }
