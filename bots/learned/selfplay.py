"""Training data for the learned bot: whole matches played with tarock_engine
States (radli carried as in an arena match), every seat deciding as the heuristic
bot (or, with a model, as the learner), and at each decision of the seat:

- its observation tensor, the extra features (features.py), the legal mask, the
  phase and the heuristic bot's choice (the imitation label);
- with probability `label[phase]`, the value of every legal action: the action
  applied to a copy of the true state, then every seat playing on as the
  heuristic bot (te.heuristic_playout, deterministic) to the end of the hand,
  scored for the deciding seat as its score minus the mean score of the other
  seats (the zero-sum utility the search bot uses). The true state holds cards
  the seat cannot see; regressed on the seat's own observation, the network
  learns the value's expectation over the deals consistent with what it saw
  (the hidden cards are never an input).

numpy and tarock_engine only; `generate` splits the matches over processes.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tarock_engine as te  # noqa: E402
import features as F  # noqa: E402

VARIANT = "slovenian-4p"
TALON_PHASE = 3


def utility(scores, seat: int) -> float:
    n = len(scores)
    return float(scores[seat]) - (float(sum(scores)) - float(scores[seat])) / (n - 1)


def _play_matches(job) -> dict:
    seed, matches, label, model_path, eps, scale = job
    game = te.game(VARIANT)
    enc = te.Encoder(game)
    rng = np.random.default_rng(seed)
    model = None
    if model_path:
        from model import load
        model = load(model_path, VARIANT, te.ENCODING_VERSION, enc.observation_size,
                     enc.num_actions)
    names = game.action_names
    index = {a: i for i, a in enumerate(names)}
    seats = game.num_seats
    X, E, M, P, Y, Q, L, G, GI = [], [], [], [], [], [], [], [], []
    for m in range(matches):
        mseed = int(rng.integers(1, 2**62))
        radli, forced, attempt, k = None, False, 0, 0
        while k < seats:
            st = game.match_hand(mseed, k, attempt=attempt, radli=radli, forced_klop=forced)
            while not st.is_terminal:
                seat = st.current_seat
                o = st.observation(seat)
                x = enc.observation(st, seat)
                msk = enc.mask(st, seat)
                ph = enc.phase(st)
                ex, groups = F.from_dict(o)
                heur = index[te.heuristic_action(st, seat)]
                legal = st.legal_actions()
                q = np.full(len(names), np.nan, np.float32)
                labelled = len(legal) > 1 and rng.random() < label[ph]
                if labelled:
                    for a in legal:
                        c = st.clone()
                        c.apply(a)
                        te.heuristic_playout(c, 0)
                        q[a] = utility(c.scores, seat) / scale
                X.append(x.astype(np.float16))
                E.append(ex)
                M.append(msk)
                P.append(ph)
                Y.append(heur)
                Q.append(q.astype(np.float16))
                L.append(labelled)
                if groups is not None:
                    G.append(groups)
                    GI.append(len(X) - 1)
                act = heur
                if model is not None and len(legal) > 1:
                    act = int(model.act(x[None].astype(np.float32), msk[None], ex[None],
                                        np.array([ph]), None if groups is None else groups[None])[0])
                if eps > 0 and len(legal) > 1 and rng.random() < eps:
                    act = int(legal[rng.integers(len(legal))])
                st.apply(act)
            r = st.result()
            if r.get("redeal") and not r.get("counts_as_hand", True):
                attempt += 1
            else:
                k += 1
                attempt = 0
            radli = list(r["radli"])
            forced = bool(r.get("next_forced_klop", False))
    return {"x": np.stack(X), "e": np.stack(E), "m": np.stack(M), "p": np.array(P, np.int8),
            "y": np.array(Y, np.int16), "q": np.stack(Q), "l": np.array(L, bool),
            "g": np.stack(G) if G else np.zeros((0, F.MAX_GROUPS, 54), np.float32),
            "gi": np.array(GI, np.int64)}


def merge(parts: list) -> dict:
    out = {}
    off = 0
    gis = []
    for p in parts:
        gis.append(p["gi"] + off)
        off += len(p["y"])
    for k in parts[0]:
        out[k] = np.concatenate([p[k] for p in parts]) if k != "gi" else np.concatenate(gis)
    return out


def generate(matches: int, seed: int, label, procs: int = 2, model_path: str = "",
             eps: float = 0.0, scale: float = 50.0, chunks: int = 0) -> dict:
    """`matches` matches (4 hands each) over `procs` processes; label: per phase
    id, the probability of computing every legal action's value."""
    chunks = chunks or procs * 4
    per = [matches // chunks + (1 if i < matches % chunks else 0) for i in range(chunks)]
    jobs = [(seed * 7919 + i, n, list(label), model_path, eps, scale)
            for i, n in enumerate(per) if n > 0]
    if procs <= 1:
        return merge([_play_matches(j) for j in jobs])
    with mp.get_context("fork").Pool(procs) as pool:
        return merge(pool.map(_play_matches, jobs))


def _search_tables(job) -> dict:
    """One process: `tables` VecEnv tables (every seat the learner's), `steps` steps.
    At every decision: the heuristic's choice and, in the phases the search bot
    searches (the play, the talon, the discards), its value of every legal action
    (VecEnv.teacher_values). The tables follow the search bot's choice (the heuristic's
    where it does not search), or the model's with probability `p_model`."""
    seed, tables, steps, iterations, model_path, p_model, scale = job
    os.environ["TAROCK_SEARCH_OPTIONS"] = f"iterations={iterations}"
    import json
    game = te.game(VARIANT)
    env = te.VecEnv(VARIANT, tables, seed=seed)
    rng = np.random.default_rng(seed)
    model = None
    if model_path:
        from model import load
        model = load(model_path, VARIANT, te.ENCODING_VERSION, env.observation_size,
                     env.num_actions)
    X, E, M, P, Y, Q, L, G, GI, H = [], [], [], [], [], [], [], [], [], []
    rows = 0
    for _ in range(steps):
        obs, mask, phase = env.obs.copy(), env.mask.copy(), env.phase.copy()
        ex = np.zeros((tables, F.EXTRA_SIZE), np.float32)
        groups = np.zeros((tables, F.MAX_GROUPS, 54), np.float32)
        for i in range(tables):
            e, g = F.from_dict(json.loads(env.observation(i)))
            ex[i] = e
            if g is not None:
                groups[i] = g
        heur = env.teacher_actions("heuristic")
        vals = env.teacher_values("search")
        has = ~np.isnan(vals).all(1)
        best = np.where(np.isnan(vals), -np.inf, vals).argmax(1).astype(np.int32)
        act = np.where(has, best, heur).astype(np.int32)
        if model is not None and p_model > 0:
            mine = model.act(obs, mask, ex, phase, groups)
            act = np.where(rng.random(tables) < p_model, mine, act).astype(np.int32)
        keep = env.num_legal > 1
        for i in np.nonzero(keep)[0]:
            X.append(obs[i].astype(np.float16))
            E.append(ex[i])
            M.append(mask[i])
            P.append(phase[i])
            Y.append(best[i] if has[i] else heur[i])
            H.append(heur[i])
            Q.append((vals[i] / scale).astype(np.float16))
            L.append(bool(has[i]))
            if phase[i] == TALON_PHASE:
                G.append(groups[i])
                GI.append(rows)
            rows += 1
        env.step(act)
    return {"x": np.stack(X), "e": np.stack(E), "m": np.stack(M), "p": np.array(P, np.int8),
            "y": np.array(Y, np.int16), "q": np.stack(Q), "l": np.array(L, bool),
            "g": np.stack(G) if G else np.zeros((0, F.MAX_GROUPS, 54), np.float32),
            "gi": np.array(GI, np.int64), "h": np.array(H, np.int16)}


def generate_search(steps: int, seed: int, tables: int = 64, iterations: int = 200,
                    procs: int = 2, model_path: str = "", p_model: float = 0.0,
                    scale: float = 50.0) -> dict:
    """Decisions labelled by the search bot (values) and the heuristic (its
    choice), from `procs` processes of `tables` tables, `steps` steps each."""
    jobs = [(seed * 7919 + 104729 * k, tables, steps, iterations, model_path, p_model, scale)
            for k in range(procs)]
    if procs <= 1:
        return merge([_search_tables(j) for j in jobs])
    with mp.get_context("fork").Pool(procs) as pool:
        return merge(pool.map(_search_tables, jobs))
