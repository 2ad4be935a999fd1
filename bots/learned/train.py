"""Trains the learned bot (bots/learned/README.md): imitation of the search bot
with soft targets, on VecEnv self-play data. numpy only; two cores, minutes.

    PYTHONPATH=build/python python3 bots/learned/train.py --out bots/learned/slovenian-4p.npz

1. Data (selfplay.generate_search): `--procs` processes each step `--tables`
   VecEnv tables (every seat the learner's) for `--steps` steps. At every decision:
   the observation tensor, features.py's extras, the legal mask, the phase, the
   heuristic bot's choice, and in the play, the talon choice and the discards the
   search bot's value of every legal action (VecEnv.teacher_values, `--iterations`
   determinizations). The tables follow the search bot (the heuristic bot where it
   does not search, as the search bot itself does).
2. Training (model.py): the policy head by cross-entropy, toward the softmax of
   the search values at temperature `--soft` (points / 50) where there are values,
   toward the heuristic bot's choice elsewhere (bidding, king call, announcements);
   the value head by regression on the values (centered per decision). Each
   minibatch renames the suits at random (features.suit_permutations: the four
   suits play alike). Adam, the learning rate falling linearly to a tenth.
3. Evaluation (`duel`): the model in two seats against the heuristic bot in the
   other two, on duplicate deals (VecEnv duplicate=True: every deal with the seats
   rotated), as `tarock compare` plays them: the mean per-deal difference (the
   model's seats minus the heuristic's) with its 95% interval.

    # only evaluate a weights file:
    PYTHONPATH=build/python python3 bots/learned/train.py --eval_only bots/learned/slovenian-4p.npz
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tarock_engine as te  # noqa: E402
import features as F  # noqa: E402
import selfplay  # noqa: E402
from model import Model, input_columns, load  # noqa: E402

VARIANT = "slovenian-4p"
PLAY, TALON = 6, 3


def prepare(d: dict) -> dict:
    """Drops decisions with one legal action; maps each talon decision to its groups."""
    keep = d["m"].sum(1) > 1
    gpos = np.full(len(d["y"]), -1, np.int64)
    gpos[d["gi"]] = np.arange(len(d["gi"]))
    out = {k: d[k][keep] for k in ("x", "e", "m", "p", "y", "q", "l")}
    out["gpos"] = gpos[keep]
    out["g"] = d["g"]
    return out


def train(model: Model, D: dict, perms, epochs: int, lr: float, batch: int, soft: float,
          value_weight: float, rng, log=print) -> None:
    params = model.params
    mom = [np.zeros_like(p) for p in params]
    var = [np.zeros_like(p) for p in params]
    n = len(D["y"])
    total = epochs * ((n + batch - 1) // batch)
    t = 0
    t0 = time.time()
    for ep in range(epochs):
        order = rng.permutation(n)
        ce_sum = mse_sum = 0.0
        nb = 0
        for s in range(0, n, batch):
            idx = np.sort(order[s:s + batch])
            xo, xe, m = D["x"][idx], D["e"][idx], D["m"][idx]
            y = D["y"][idx].astype(np.int64)
            tq = D["q"][idx].astype(np.float32)
            lab = D["l"][idx]
            ph = D["p"][idx]
            gp = D["gpos"][idx]
            tr = np.nonzero(gp >= 0)[0]
            g = D["g"][gp[tr]] if len(tr) else None
            osrc, asrc, esrc, inv = perms[rng.integers(len(perms))]
            xo, xe, m, tq = xo[:, osrc], xe[:, esrc], m[:, asrc], tq[:, asrc]
            ainv = np.empty_like(asrc)
            ainv[asrc] = np.arange(len(asrc))
            y = ainv[y]
            if g is not None:
                g = g[:, :, inv]
            x = model.inputs(xo, xe)
            pr = np.nonzero(ph == PLAY)[0]
            cards = model.card_features(xo[pr], xe[pr]) if len(pr) else None
            logits, q, cache = model.forward(x, tr, g, pr, cards)
            B = len(y)
            z = np.where(m, logits, -1e9)
            z -= z.max(1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(1, keepdims=True)
            ce_sum += float(-np.log(p[np.arange(B), y] + 1e-12).mean())
            dl = p.copy()
            dl[np.arange(B), y] -= 1
            valued = lab[:, None] & m & ~np.isnan(tq)
            if soft > 0 and lab.any():
                lm = valued[lab]
                zz = np.where(lm, np.nan_to_num(tq[lab]) / soft, -1e9)
                zz -= zz.max(1, keepdims=True)
                target = np.exp(zz) * lm
                target /= target.sum(1, keepdims=True)
                dl[lab] = p[lab] - target
            dl /= B
            k = np.maximum(valued.sum(1, keepdims=True), 1)
            qc = q - np.where(valued, q, 0).sum(1, keepdims=True) / k
            tv = np.nan_to_num(tq)
            tc = tv - np.where(valued, tv, 0).sum(1, keepdims=True) / k
            diff = np.where(valued, qc - tc, 0.0)
            cnt = max(1, int(valued.sum()))
            mse_sum += float((diff ** 2).sum() / cnt)
            dq = (2 * value_weight / cnt) * diff
            grads = model.grads(cache, dl.astype(np.float32), dq.astype(np.float32))
            t += 1
            rate = lr * (1 - 0.9 * t / total)
            for i, (w, gr) in enumerate(zip(params, grads)):
                mom[i] = 0.9 * mom[i] + 0.1 * gr
                var[i] = 0.999 * var[i] + 0.001 * gr * gr
                w -= (rate * (mom[i] / (1 - 0.9 ** t)) /
                      (np.sqrt(var[i] / (1 - 0.999 ** t)) + 1e-8)).astype(np.float32)
            nb += 1
        log(f"  epoch {ep + 1}/{epochs}: cross-entropy {ce_sum / nb:.3f}, value error "
            f"{mse_sum / nb:.4f}, {time.time() - t0:.0f} s")


def table_policy(model: Model):
    """obs/mask/phase of a VecEnv plus each table's observation -> the model's actions
    (as the bot decides: its margins and suit renamings)."""
    game = te.game(VARIANT)
    perms = F.pick_permutations(
        F.suit_permutations(te.Encoder(game).fields, game.action_names), model.tta)

    def act(env) -> np.ndarray:
        n = env.num_envs
        ex = np.zeros((n, F.EXTRA_SIZE), np.float32)
        groups = np.zeros((n, F.MAX_GROUPS, 54), np.float32)
        for i in range(n):
            e, g = F.from_dict(json.loads(env.observation(i)))
            ex[i] = e
            if g is not None:
                groups[i] = g
        return model.act(env.obs, env.mask, ex, env.phase, groups, perms=perms)
    return act


def duel(act, deals: int, seed: int, opponent: str = "heuristic", tables: int = 64) -> dict:
    """The policy in seats 0 and 2 against `opponent` in 1 and 3, every deal played
    at a group of tables with the seats rotated (VecEnv duplicate), as `tarock
    compare` plays its head-to-head seatings: per deal, the mean score of the
    policy's seats minus the mean score of the opponent's, over the seatings.
    Returns mean, the 95% interval's half-width, deals."""
    env = te.VecEnv(VARIANT, tables, seed=seed,
                    seat_bots=["agent", opponent, "agent", opponent], duplicate=True)
    seats = env.num_seats
    agent = np.array([[env.controller(i, s) == "agent" for s in range(seats)]
                      for i in range(tables)])
    got: list = []
    while len(got) < deals:
        env.step(act(env))
        done = env.dup_done
        if done.any():
            dup = env.dup_reward
            for g0 in range(0, tables, seats):
                if done[g0]:
                    # Each seat's cards: (agent seats' dup rewards) sum to the agent's
                    # mean minus the opponent's mean over the group, for that seat.
                    got.append(float((dup[g0:g0 + seats] * agent[g0:g0 + seats]).sum()) / seats)
    x = np.array(got[:deals])
    return {"mean": float(x.mean()), "ci95": 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x)),
            "deals": len(x)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=1800, help="steps of every table (data)")
    p.add_argument("--tables", type=int, default=64, help="VecEnv tables per process")
    p.add_argument("--procs", type=int, default=2, help="processes generating data")
    p.add_argument("--iterations", type=int, default=50, help="search bot determinizations")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--soft", type=float, default=0.02,
                   help="temperature of the soft targets, in points / 50 (0: the search's choice)")
    p.add_argument("--value_weight", type=float, default=5.0)
    p.add_argument("--play_by", choices=("value", "policy"), default="value",
                   help="which head decides the play (the other phases: the policy head)")
    p.add_argument("--tta", type=int, default=4,
                   help="suit renamings the bot averages its heads over (1..24)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--eval_deals", type=int, default=1200)
    p.add_argument("--eval_seed", type=int, default=5)
    p.add_argument("--data", default="", help="save the data here (.npz), or load it if present")
    p.add_argument("--out", default="")
    p.add_argument("--eval_only", default="", help="only evaluate this weights file")
    a = p.parse_args()
    t0 = time.time()
    game = te.game(VARIANT)
    enc = te.Encoder(game)
    if a.eval_only:
        model = load(a.eval_only, VARIANT, te.ENCODING_VERSION, enc.observation_size,
                     enc.num_actions)
    else:
        if a.data and Path(a.data).exists():
            raw = dict(np.load(a.data))
            print(f"data: {len(raw['y'])} decisions from {a.data}", flush=True)
        else:
            raw = selfplay.generate_search(a.steps, a.seed, a.tables, a.iterations, a.procs)
            print(f"data: {len(raw['y'])} decisions ({int(raw['l'].sum())} with search values), "
                  f"{time.time() - t0:.0f} s", flush=True)
            if a.data:
                np.savez(a.data, **raw)
        D = prepare(raw)
        del raw
        model = Model(enc.observation_size, enc.num_actions, (a.hidden, a.hidden), a.seed,
                      VARIANT, te.ENCODING_VERSION, input_columns(enc.fields),
                      game.action_index("talon 0"), game.action_index("play T1"), enc.fields)
        perms = F.suit_permutations(enc.fields, game.action_names)
        train(model, D, perms, a.epochs, a.lr, a.batch, a.soft, a.value_weight,
              np.random.default_rng(a.seed), log=lambda s: print(s, flush=True))
        print(f"trained, {time.time() - t0:.0f} s", flush=True)
        if a.play_by == "value":
            model.margin[PLAY] = 0.0
        model.tta = a.tta
        if a.out:
            model.save(a.out)
            print(f"saved {a.out} ({Path(a.out).stat().st_size // 1024} KiB)")
    if a.eval_deals:
        r = duel(table_policy(model), a.eval_deals, a.eval_seed)
        print(f"against the heuristic bot, head to head on duplicate deals: {r['mean']:+.2f} "
              f"[{r['mean'] - r['ci95']:+.2f}, {r['mean'] + r['ci95']:+.2f}] points per deal "
              f"({r['deals']} deals, seed {a.eval_seed}), {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
